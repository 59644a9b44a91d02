#!/bin/sh
# A softmax whose running max starts at 0 instead of -inf is right for any row
# with a value above about -87 and NaN for a row of large negative values
# (every exp underflows, 0/0): large-offset draws rows at -10000 as well as
# +10000, so the default campaign finds it (it passed before, and a plain
# differential test passes it).
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/maxzero

out=$(run_dirigo fuzz "$D/softmax_max0.lua")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "fuzz: a max started at 0 is a bug (exit 1)"
like "$out" "FAIL at case [0-9]+ \(N=[0-9]+ C=[0-9]+ large-offset\): .*kernel -?nan, reference" "a large-offset case, NaN where the reference is finite"
out=$(run_dirigo fuzz "$DG_SRCDIR/samples/softmax/softmax_warp.lua" --strategy adversarial --cases 40)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "the sample it came from (max from -inf) passes the same values"
done_testing
