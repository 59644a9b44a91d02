#!/bin/sh
# A softmax whose running max starts at 0 instead of -inf is right for any row
# with a value above about -87 and NaN for a row of large negative values
# (every exp underflows, 0/0): large-offset draws rows at -10000 as well as
# +10000, so the default campaign finds it (it passed before, and a plain
# differential test passes it); check finds it by pushing every exp argument of
# the element below f32's underflow point and replaying.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/maxzero

out=$(run_dirigo fuzz "$D/softmax_max0.lua")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "fuzz: a max started at 0 is a bug (exit 1)"
like "$out" "FAIL at case [0-9]+ \(N=[0-9]+ C=[0-9]+ large-offset\): .*kernel -?nan, reference" "a large-offset case, NaN where the reference is finite"
out=$(run_dirigo fuzz "$DG_SRCDIR/samples/softmax/softmax_warp.lua" --strategy adversarial --cases 40)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "the sample it came from (max from -inf) passes the same values"
out=$(run_dirigo check "$D/softmax_max0.lua" --at 3,10)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "check: a bug too (the real model alone calls it equivalent: softmax is shift-invariant)"
like "$out" "y\[3,10\] +bug +kernel -?nan vs reference .*every argument of expf or exp2f falls below the point where it underflows to 0" \
  "found by the f32 exp check's underflow push, replayed"
out=$(run_dirigo check "$DG_SRCDIR/samples/softmax/softmax_warp.lua" --at 3,10)
like "$out" "y\[3,10\] +equivalent" "the max-shifted original stays equivalent"
done_testing
