#!/bin/sh
# --auto's huge instances chosen by work, not by the clock (session 9). The
# correct conv2d_k3 ended `unknown` in the sweep: the fuzzer's instances walk
# C = 1281 channels in 64 threads of a block (x) and C = 9103 in 16 (w), one
# element's symbolic run 30 s and more, cut by the budget. Now a heavy
# instance has the sizes that are no dimension of its target set to 1 (w's
# N, H, W: one pixel, one thread walks the channels) or is replaced by
# check_big's own (x with N, H, W grown and C at the spec's 3); block work is
# measured in lane operations (a work limit), and the writer block's concrete
# run at a huge instance gives its engine finding whether heavy or not.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
D=$DG_SRCDIR/t/data/checkload

# --budget 60, not the sweep's 20: the verdict must not hang on the machine's load
# (11 s alone at load 5-7; 32 s an element at the old C = 1281 instance)
out=$(run_dirigo check "$S/conv/conv2d_k3.lua" --auto --budget 60 --no-journal --no-gpu)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "conv2d_k3 --auto: exit 0"
ok "! printf '%s\n' \"\$out\" | grep -q ' unknown '" "no element unknown (it was, at the fuzzer's C = 1281 and C = 9103 instances)"
printf '%s\n' "$out" | grep ' unknown \|budget of' | sed 's/^/#   /'
like "$out" "a huge instance .*--size N=32768 --size C=3 --size H=[0-9]+ --size W=11 --size K=2 " \
  "x's instance grows N and H, C stays at 3 (was C=1281)"
like "$out" "a huge instance .*--size N=1 --size C=9103 --size H=1 --size W=1 --size K=32768 " \
  "w's instance: one pixel (was H=W=4)"
like "$out" "y\[0,32767,0,0\] +equivalent" "and its last element is proved"
ok "[ \$(printf '%s\n' \"\$out\" | grep -c ' equivalent ') -ge 20 ]" "every element checked is equivalent"

# the filter offset in int (the mutant): found at that instance by the writer
# block's concrete run, no symbolic run (81,927 out-of-bounds loads took the
# symbolic run 33 s past a 20 s budget)
out=$(run_dirigo check "$D/conv2d_k3_wcast.lua" --size N=1 --size C=9103 --size H=1 --size W=1 --size K=32768 \
  --at 0,32767,0,0 --budget 60 --no-journal --no-gpu --json)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "w offset in int: a finding (exit 1)"
like "$out" "\"verdict\":\"out-of-bounds\",\"reason\":\"[^\"]*conv2d_k3_wcast.cu:11:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of w .*\(concrete run on the emulator \(the writer's block\)\); replayed on the emulator" \
  "the negative offset into w, from the writer block's concrete run, replayed"
like "$out" "\"symbolic\":0[,.}]" "no symbolic run"
out=$(run_dirigo check "$D/conv2d_k3_wcast.lua" --auto --budget 60 --no-journal --no-gpu)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "--auto finds it"
like "$out" "y\[0,32767,0,0\] +out-of-bounds" "at w's instance"
done_testing
