#!/bin/sh
# scripts.sh — the GPU-machine scripts parse, and device-run.sh runs the GPU
# tests of this build and summarises them (PASS, or SKIP where no GPU is).
src=${DG_SRCDIR:-.}
n=0; bad=0
t() { n=$((n+1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi; }
sh -n "$src/t/gpu/device-run.sh"; t $? "device-run.sh parses"
sh -n "$src/t/gpu/carry-libs.sh"; t $? "carry-libs.sh parses"
sh -n "$src/t/gpu/pack-clone.sh"; t $? "pack-clone.sh parses"
out=$(OUT= sh "$src/t/gpu/device-run.sh" --no-bench 2>&1); rc=$?
t $rc "device-run.sh passes on this build (rc $rc)"
for p in avail compile run problem; do
  echo "$out" | grep -Eq "^$p\.t +(PASS|SKIP) " ; t $? "summary line for $p.t"
done
echo "$out" | grep -Eq "^(all GPU tests passed on the GPU|passed, but no GPU here)"; t $? "a verdict line"
[ $bad = 0 ] || echo "$out" | sed 's/^/# /'
echo "1..$n"
exit $bad
