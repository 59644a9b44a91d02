# lib.sh — helpers for the TUI tests (sourced). They drive the real views
# through the headless backend and compare screen dumps with t/tui/expected/.
#   tui_run NAME WxH KEYS [ARGS...]   run dirigo headless in t/tui/data, dumps in $T/NAME
#   tui_same NAME NNN [WHAT]          TAP line: dump NNN equals expected/NAME/NNN.txt
#   tui_style NAME NNN [WHAT]         same for the .style dump
#   tui_has NAME NNN TEXT WHAT        TAP line: dump NNN contains TEXT
# DG_TUI_UPDATE=1 rewrites the expected files from the current output (then
# review them with git diff before committing).
: "${DIRIGO:?}" "${DG_SRCDIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/dg-tui.XXXXXX")
trap 'rm -rf "$T"' EXIT
# no user themes or data dir of the person running the tests
XDG_CONFIG_HOME=$T/config; export XDG_CONFIG_HOME
unset DIRIGO_DATADIR
EXP=$DG_SRCDIR/t/tui/expected
# a copy of the data: checks write witness files next to the problem (.dirigo/)
cp -R "$DG_SRCDIR/t/tui/data" "$T/data" && chmod -R u+w "$T/data"
DATA=$T/data
tap_n=0 tap_fail=0

tap() {  # tap STATUS(0 ok) WHAT
  tap_n=$((tap_n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_fail=1; fi
}

tui_run() {
  name=$1 size=$2 keys=$3; shift 3
  mkdir -p "$T/$name"
  printf '%s\n' "$keys" > "$T/$name.keys"
  # from t/tui/data, so that files are named relative to it on screen
  (cd "$DATA" && "$DIRIGO" --headless "$size" --keys "$T/$name.keys" --dump "$T/$name" "$@" \
    > "$T/$name.out" 2> "$T/$name.err"; echo $? > "$T/$name.rc")
}

tui_cmp() {  # tui_cmp NAME FILE WHAT
  want=$EXP/$1/$2 got=$T/$1/$2
  if [ -n "${DG_TUI_UPDATE:-}" ] && [ -f "$got" ]; then mkdir -p "$EXP/$1"; cp "$got" "$want"; fi
  if [ -f "$got" ] && cmp -s "$want" "$got"; then tap 0 "$3"
  else
    tap 1 "$3"
    if [ -f "$got" ]; then diff -u "$want" "$got" | sed 's/^/# /' | head -40
    else echo "# no dump $got; stderr:"; sed 's/^/# /' "$T/$1.err"; fi
  fi
}

tui_same() { tui_cmp "$1" "$2.txt" "${3:-$1 screen $2}"; }
tui_style() { tui_cmp "$1" "$2.style" "${3:-$1 styles $2}"; }

tui_has() {
  if grep -qF -- "$3" "$T/$1/$2.txt" 2>/dev/null; then tap 0 "$4"
  else tap 1 "$4"; echo "# '$3' not in $1/$2.txt:"; sed 's/^/#   /' "$T/$1/$2.txt" 2>/dev/null | head -30; fi
}

tui_rc() {  # tui_rc NAME CODE WHAT
  got=$(cat "$T/$1.rc")
  if [ "$got" = "$2" ]; then tap 0 "$3"; else tap 1 "$3"; echo "# exit $got, want $2"; sed 's/^/# /' "$T/$1.err"; fi
}

tui_done() { echo "1..$tap_n"; exit $tap_fail; }
