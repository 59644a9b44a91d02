#!/bin/sh
# agree-all.sh — the emulator vs the GPU on every sample, in parallel (one
# agree.t per sample), as one TAP stream plus the markdown table of
# doc/gpu-agreement.md:
#   sh t/gpu/agree-all.sh [-j JOBS] [--cases N] [--realistic N] [--out DIR] [SPEC.lua ...]
# agree.t comes from $AGREE, else $DG_BUILDDIR/t/gpu/agree.t, else
# .devcarry/bin/agree.t. Writes DIR/agree.md (the table), DIR/agree.tsv (rows)
# and DIR/agree-logs/ (each sample's TAP); DIR defaults to a temporary folder.
# Without a GPU: 1..0 # SKIP, exit 0.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
cases=16 realistic=0 out= limit=${AGREE_TIMEOUT:-120}
while [ $# -gt 0 ]; do
  case $1 in
    -j) jobs=$2; shift ;;
    --cases) cases=$2; shift ;;
    --realistic) realistic=$2; shift ;;
    --out) out=$2; shift ;;
    *) break ;;
  esac
  shift
done
agree=${AGREE:-}
[ -z "$agree" ] && [ -n "${DG_BUILDDIR:-}" ] && agree=$DG_BUILDDIR/t/gpu/agree.t
[ -z "$agree" ] || [ -x "$agree" ] || agree=
[ -z "$agree" ] && [ -x "$root/.devcarry/bin/agree.t" ] && agree=$root/.devcarry/bin/agree.t
if [ -z "$agree" ]; then echo "1..0 # SKIP agree.t not built"; exit 0; fi
export DG_SRCDIR=${DG_SRCDIR:-$root}

probe=$("$agree" --cases 1 /nonexistent.lua 2>/dev/null | head -1)
case $probe in "1..0 # SKIP"*) echo "$probe"; exit 0 ;; esac

tmp=$(mktemp -d)
[ -n "$out" ] || out=${DG_BUILDDIR:-.}/agree-out
mkdir -p "$out/agree-logs"
if [ $# -gt 0 ]; then printf '%s\n' "$@" >"$tmp/specs"
else
  find "$root/samples" -name '*.lua' | sort | while read -r f; do
    grep -q 'return problem' "$f" && echo "$f"
  done >"$tmp/specs"
fi
t0=$(date +%s)
# one process per sample; each log named after the sample
xargs -P "$jobs" -I{} sh -c '
  f=$1; n=${f#*samples/}; n=$(echo "${n%.lua}" | tr / _)
  timeout "$6" "$2" --cases "$3" --realistic "$4" --budget $(($6 / 2)) "$f" >"$5/agree-logs/$n.log" 2>&1
  echo "# rc $?" >>"$5/agree-logs/$n.log"
' sh {} "$agree" "$cases" "$realistic" "$out" "$limit" <"$tmp/specs"
t1=$(date +%s)

# one TAP stream: the samples' tests renumbered
n=0 fail=0
for log in "$out"/agree-logs/*.log; do
  while IFS= read -r line; do
    case $line in
      "ok "*|"not ok "*)
        n=$((n + 1))
        case $line in "not ok"*) fail=$((fail + 1)); pre="not ok" ;; *) pre=ok ;; esac
        echo "$pre $n ${line#* [0-9]* }" ;;
      "1.."*) ;;
      "# row"*|"# realistic"*|"# rc "*) ;;
      *) echo "$line" ;;
    esac
  done <"$log"
  # killed by the time limit after its row: only the realistic cases were cut
  if ! grep -q '^1\.\.' "$log" && ! { grep -q '^# rc 124' "$log" && grep -q '^# row' "$log"; }; then
    n=$((n + 1)); fail=$((fail + 1))
    echo "not ok $n - $(basename "$log" .log): agree.t died"; tail -3 "$log" | sed 's/^/#   /'
  fi
done
# rows with the realistic verdict spliced in before the timings
for log in "$out"/agree-logs/*.log; do
  row=$(grep '^# row' "$log" | cut -f2-)
  [ -n "$row" ] || continue
  real=$(grep '^# realistic' "$log" | cut -f3-)
  if [ -z "$real" ]; then
    if grep -q '^# rc 124' "$log"; then real="time limit (${limit} s): the CPU reference at these sizes"
    else real=-; fi
  fi
  printf '%s\n' "$row" | awk -F'\t' -v r="$real" 'BEGIN { OFS = "\t" } { $10 = $9; $9 = $8; $8 = r; print }'
done >"$out/agree.tsv"

{
  echo "| sample | seeded bug | emulator | GPU | agree | cases agreeing | why they differ | GPU at realistic sizes | emu s | GPU s |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  awk -F'\t' '{ printf "|"; for (i = 1; i <= NF; i++) printf " %s |", ($i == "" ? " " : $i); printf "\n" }' "$out/agree.tsv"
  total=$(wc -l <"$out/agree.tsv")
  same=$(awk -F'\t' '$5 == "yes"' "$out/agree.tsv" | wc -l)
  echo
  echo "$same of $total samples agree; $cases cases each (boundary+adversarial, seed 1); $((t1 - t0)) s with $jobs jobs."
} >"$out/agree.md"
echo "# table: $out/agree.md"
echo "1..$n"
rm -rf "$tmp"
[ $fail -eq 0 ]
