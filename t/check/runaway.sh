#!/bin/sh
# A loop past the engine's step limit is a finding only when it is shown to
# loop forever (the registers its test reads repeat at its head); a loop that
# merely runs long is `unknown`, naming the limit. And every stage of a check
# honours --budget: the writer search, the symbolic run and a witness's
# replay, each cut inside a long loop, end `unknown` saying the budget is
# spent — never a finding, never "did not replay". (Kernels: loop/pipe_loops.cu.)
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
D=$DG_SRCDIR/t/check/loop

# loops that never advance: a finding (exit 1), at the spec's small sizes
for s in pipe_part_sum_zero pipe_part_sum_stride0 sum_stuck; do
  out=$(run_dirigo check "$D/$s.lua" --at 0 --no-journal --no-gpu)
  is "$(cat "$rcf")" 1 "$s: a finding (exit 1)"
  like "$out" "^y\[0\] +finding +.*pipe_loops.cu:[0-9]+:5: runaway-loop: loop cannot end: the registers its test reads repeat at its head" \
    "$s: runaway-loop, shown endless, at the loop's line"
done
# c += 0 at a size past the limit is still endless (shown long before it)
out=$(run_dirigo check "$D/pipe_part_sum_zero.lua" --size C=300000000 --at 0 --no-journal --no-gpu)
is "$(cat "$rcf")" 1 "pipe_part_sum_zero at C=3e8: still a finding"
like "$out" "runaway-loop: loop cannot end" "...shown endless"

# the correct kernels at their sizes: proved
for s in pipe_part_sum sum_one pipe_sum_one; do
  out=$(run_dirigo check "$D/$s.lua" --at 0 --no-journal --no-gpu)
  is "$(cat "$rcf")" 0 "$s at C=1000: exit 0"
  like "$out" "^y\[0\] +equivalent" "$s at C=1000: equivalent"
done
# one thread walking 1.1 M elements passes the step limit (2^20): unknown, not a finding
for s in sum_one pipe_sum_one; do
  out=$(run_dirigo check "$D/$s.lua" --size C=1100000 --at 0 --no-journal --no-gpu)
  is "$(cat "$rcf")" 0 "$s at C=1100000: exit 0 (no finding)"
  like "$out" "^y\[0\] +unknown +.*pipe_loops.cu:[0-9]+:5: runaway-loop: loop ran past the step limit of 1048576 iterations .*not shown to loop forever, is no finding; check smaller sizes \(--size\)" \
    "$s at C=1100000: unknown, naming the limit and what to do"
done
out=$(run_dirigo check "$D/sum_one.lua" --size C=1100000 --at 0 --json --no-journal --no-gpu)
like "$out" '"verdict":"unknown"' "--json: unknown"

# --budget cuts each stage; rep_sum runs R * C = 10^9 iterations (minutes uncut; the budgets
# leave seconds of slack for the stages before the one cut)
# the writer search of a pipeline runs every launch concretely: cut in its loop
out=$(run_dirigo check "$D/rep_sum_pipe.lua" --at 0 --budget 2 --no-journal --no-gpu)
is "$(cat "$rcf")" 0 "rep_sum_pipe --budget 2: exit 0"
like "$out" "^y\[0\] +unknown +the budget was spent finding the writer \(launch 1: time limit reached (in|entering) the loop at line [0-9]+" \
  "the writer search, cut in a loop: unknown (budget)"
# one launch on 2 blocks: the writer search runs the store slice (no loop), the symbolic run is cut
out=$(run_dirigo check "$D/rep_sum.lua" --at 0 --budget 2 --no-journal --no-gpu)
is "$(cat "$rcf")" 0 "rep_sum --budget 2: exit 0"
like "$out" "^y\[0\] +unknown +the check's budget is spent in the symbolic run \(launch 1: time limit reached (in|entering) the loop at line [0-9]+" \
  "the symbolic run, cut in a loop: unknown (budget)"
# block 0 drops x[C-1] (a bug found in its cheap block); block 1 spins: the replay is cut
out=$(run_dirigo check "$D/drop_last_spin.lua" --at 0 --budget 5 --no-journal --no-gpu)
is "$(cat "$rcf")" 0 "drop_last_spin --budget 5: exit 0 (no unreplayed bug)"
like "$out" "^y\[0\] +unknown +the check's budget is spent: the replay of a candidate witness on the emulator was cut" \
  "the replay, cut: unknown (budget), not 'did not replay'"
# ...and with a short spin (C=5: 5 M iterations) the same bug replays
out=$(run_dirigo check "$D/drop_last_spin.lua" --size C=5 --at 0 --no-journal --no-gpu)
is "$(cat "$rcf")" 1 "drop_last_spin at C=5: the bug (exit 1)"
like "$out" "^y\[0\] +bug +kernel .* vs reference .*witness replayed on the emulator" "...replayed"
# a budget spent before the check starts its launches: unknown at once
out=$(run_dirigo check "$D/pipe_part_sum.lua" --at 0 --budget 0.000001 --no-journal --no-gpu)
is "$(cat "$rcf")" 0 "--budget 1e-6: exit 0"
like "$out" "^y\[0\] +unknown +.*budget" "unknown (budget)"
done_testing
