# lib.sh — a few TAP helpers for the shell tests (sourced).
n=0; failed=0
ok() {   # ok "shell condition" "name"
  n=$((n+1))
  if eval "$1"; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
is() {   # is GOT WANT "name"
  n=$((n+1))
  if [ "$1" = "$2" ]; then echo "ok $n - $3"; else echo "not ok $n - $3"; echo "#   got '$1', want '$2'"; failed=1; fi
}
like() { # like TEXT REGEX "name"
  n=$((n+1))
  if printf '%s\n' "$1" | grep -qE -- "$2"; then echo "ok $n - $3"
  else echo "not ok $n - $3"; echo "#   no match for /$2/ in:"; printf '%s\n' "$1" | head -20 | sed 's/^/#   /'; failed=1; fi
}
# run_dirigo ARGS...: output on stdout, exit status in $rc (use in $(...)
# and read rc from the file it leaves).
run_dirigo() {
  "$DIRIGO" "$@"; echo $? > "${TMPDIR:-/tmp}/dg_rc.$$"
}
done_testing() { echo "1..$n"; exit $failed; }
