#!/bin/sh
# bench/mutants.sh — mutants of the correct samples (`dirigo mutants`), the
# ones a plain differential test lets through, and what dirigo finds in them:
#   1. every correct sample's kernel mutated (doc/mutants.md: a bound one off,
#      `=` for `+=`, a barrier dropped, 0 for -inf, a 64-bit cast dropped, ...)
#   2. each mutant under a differential test: bench/strategies/differential.lua
#      (the spec's sizes, normal values, DIFF_CASES draws, every element
#      compared; only a wrong value counts, as on hardware) — the mutants it
#      passes are the population, as the literature's kernels all passed
#      differential testing
#   3. `dirigo sweep` of that population: check --auto and fuzz
#      (boundary+adversarial), each mutant in its own child, --budget S each
# sh bench/mutants.sh [--ops LIST] [--budget S] [--jobs N] [--keep DIR] [--samples DIR]
# (DIRIGO=path/to/dirigo, DG_SRCDIR=the source tree; `make bench-mutants`)
set -u
src=${DG_SRCDIR:-.}
dirigo=${DIRIGO:-./dirigo}
ops=""; budget=20; jobs=1; keep=""; cases=${DIFF_CASES:-5}; from=$src/samples
while [ $# -gt 0 ]; do
  case $1 in
    --ops) ops="--ops $2"; shift ;;
    --budget) budget=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --keep) keep=$2; shift ;;
    --samples) from=$2; shift ;;
    *) echo "usage: sh bench/mutants.sh [--ops LIST] [--budget S] [--jobs N] [--keep DIR] [--samples DIR]" >&2; exit 2 ;;
  esac
  shift
done
w=${keep:-$(mktemp -d)}
rm -rf "$w/all" "$w/pass" "$w/cfg" "$w/quiet.list"; mkdir -p "$w/pass" "$w/cfg/dirigo/strategies"
cp "$src/bench/strategies/differential.lua" "$w/cfg/dirigo/strategies/"
export XDG_CONFIG_HOME="$w/cfg" DIRIGO_DATADIR=${DIRIGO_DATADIR:-$src}
t0=$(date +%s)
# shellcheck disable=SC2086
"$dirigo" mutants "$from" --out "$w/all" $ops 2>"$w/mutants.err" | tee "$w/mutants.log"
total=0; dead=0; killed=0; hung=0; pass=0; quiet=0
for d in "$w"/all/*/; do
  spec=$(ls "$d"*.lua 2>/dev/null | head -1)
  [ -n "$spec" ] || spec=$(ls "$d"*.cu | head -1)
  total=$((total + 1))
  timeout 60 "$dirigo" fuzz "$spec" --strategy differential --cases "$cases" >"$d/diff.log" 2>&1
  rc=$?
  # a plain differential test compares values: only a failing value catches a
  # mutant here; what the emulator alone reports (an out-of-bounds access, a
  # race, an uninitialised read) with every value right does not
  nfail=$(sed -n 's/^[0-9]* cases: [0-9]* pass, \([0-9]*\) fail,.*/\1/p' "$d/diff.log")
  case $rc in
    0) pass=$((pass + 1)); mv "$d" "$w/pass/" ;;
    1) if [ "${nfail:-1}" = 0 ] && grep -q 'runaway-loop:' "$d/diff.log"; then hung=$((hung + 1))   # hardware hangs
       elif [ "${nfail:-1}" = 0 ]; then pass=$((pass + 1)); quiet=$((quiet + 1)); basename "$d" >>"$w/quiet.list"; mv "$d" "$w/pass/"
       else killed=$((killed + 1)); fi ;;
    124) hung=$((hung + 1)) ;;
    *) dead=$((dead + 1)) ;;
  esac
done
t1=$(date +%s)
echo
echo "mutants of the correct samples: $total ($(sed -n 's/^[0-9]* mutants\{0,1\} of \([0-9]*\) problem.*/\1/p' "$w/mutants.log") problems)"
echo "  do not load or run (a compile error, an error case): $dead"
echo "  caught by the differential test ($cases cases at the spec's sizes, normal values): $killed"
echo "  hang the differential test (60 s, or a loop past the emulator's step limit): $hung"
echo "  pass the differential test: $pass  <- the population below"
echo "    ($quiet of them only because the emulator stopped at undefined behaviour (out of bounds, a race, ...)"
echo "     before comparing values; on hardware their values may or may not show it: $w/quiet.list)"
echo "  ($((t1 - t0)) s)"
echo
"$dirigo" sweep "$w/pass" --budget "$budget" --jobs "$jobs" --fresh >"$w/sweep.log" 2>&1
sed -n '/^problem/,$p' "$w/sweep.log"
echo "(sweep: $(($(date +%s) - t1)) s; mutants kept in $w)"
[ -n "$keep" ] || rm -rf "$w"
