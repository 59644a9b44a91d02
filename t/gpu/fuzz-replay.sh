#!/bin/sh
# fuzz-replay.sh — `dirigo replay --backend gpu` and the size cap of witnesses:
# a campaign's printed replay command reproduces its failure (same shape, same
# input digest), --max-elems is checked, and the GPU replay either runs the
# same case as the emulator (same digest) or, without a GPU, says why and
# exits 2. The GPU half runs on the GPU machine (t/gpu/fuzz-device.sh).
src=${DG_SRCDIR:-.}
D=${DIRIGO:-./dirigo}
n=0; bad=0
t() { n=$((n+1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi; }
digest() { echo "$1" | sed -n 's/.*inputs digest \([0-9a-f]*\).*/\1/p'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$src/samples/elementwise/residual_add_gridfloor.lua

# a campaign under a non-default cap prints it in the replay command
out=$("$D" fuzz "$P" --strategy boundary --cases 8 --max-elems 100000 2>&1)
cmd=$(echo "$out" | sed -n 's/^  replay: dirigo replay //p')
case $cmd in *"--max-elems 100000"*) r=0 ;; *) r=1 ;; esac
t $r "the replay command carries the campaign's cap ($cmd)"
# shellcheck disable=SC2086
rep=$("$D" replay $cmd 2>&1); rc=$?
t $((rc != 1)) "which replays the failure (rc $rc)"
shape=$(echo "$out" | sed -n 's/^  shrunk to \([^:]*\):.*/\1/p')
echo "$rep" | grep -q "shape $shape " ; t $? "same shape ($shape)"
# the default cap: an emulator campaign's witness has no flags
out=$("$D" fuzz "$P" --strategy boundary --cases 8 2>&1)
cmd=$(echo "$out" | sed -n 's/^  replay: dirigo replay //p')
case $cmd in *--max-elems*|*--backend*) r=1 ;; *) r=0 ;; esac
t $r "no flags at the default cap ($cmd)"

# bad caps are usage errors
"$D" replay "$P" fuzz:boundary:1:0 --max-elems 0 >"$tmp/o" 2>&1; rc=$?
t $((rc != 2)) "--max-elems 0 is refused (rc $rc)"
grep -q 'max-elems takes a positive number' "$tmp/o"; t $? "and says so"
"$D" fuzz "$P" --max-elems x >"$tmp/o" 2>&1; rc=$?
t $((rc != 2)) "--max-elems x is refused by fuzz too (rc $rc)"

# the GPU replay: the emulator's case, or a clear refusal
w=fuzz:boundary+adversarial:1:1
cpu=$("$D" replay "$P" $w 2>&1)
echo "$cpu" | grep -q 'backend cpu'; t $? "a replay names its backend"
gpu=$("$D" replay "$P" $w --backend gpu 2>&1); rc=$?
if echo "$gpu" | grep -q 'the GPU backend is unavailable'; then
  t $((rc != 2)) "no GPU: replay --backend gpu exits 2 with the reason (# $(echo "$gpu" | head -1))"
else
  echo "$gpu" | grep -q 'backend gpu'; t $? "replay --backend gpu runs on the GPU"
  a=$(digest "$cpu"); b=$(digest "$gpu")
  [ -n "$a" ] && [ "$a" = "$b" ]; t $? "with the emulator's inputs (digest $a / $b)"
fi
"$D" replay "$P" $w --backend tpu >"$tmp/o" 2>&1; rc=$?
t $((rc != 2)) "an unknown backend is a usage error (rc $rc)"
# the device scripts that run the GPU half parse
sh -n "$src/t/gpu/fuzz-device.sh"; t $? "fuzz-device.sh parses"
sh -n "$src/t/gpu/agree-all.sh"; t $? "agree-all.sh parses"
[ $bad = 0 ] || { echo "# fuzz:"; echo "$out" | sed 's/^/#   /'; }
echo "1..$n"
exit $bad
