#!/bin/sh
# A loop past the emulator's step limit (2^20 iterations) is a finding for
# fuzz only when the engine shows it cannot end (the registers its test reads
# repeat at its head); one that merely runs long leaves the case not judged
# (skipped, naming the loop and the limit), as check says `unknown` for it.
# It used to be a runaway-loop finding on a correct kernel. (Kernels:
# t/check/loop/pipe_loops.cu.)
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/check/loop
rcf="${TMPDIR:-/tmp}/dg_rc.$$"

out=$(run_dirigo fuzz "$D/sum_long.lua" --strategy regular --cases 2 --max-elems 4000000)
is "$(cat "$rcf")" 0 "a correct one-thread sum of 1.1 M elements: exit 0"
like "$out" "case 0 .*C=1100000 .* skipped +not judged: .*pipe_loops.cu:56:5: runaway-loop: loop ran past the step limit of 1048576 iterations .*not shown to loop forever: a long loop is no finding" \
  "the case is not judged, naming the loop, the limit and why"
like "$out" "2 cases: 0 pass, 0 fail, 0 findings, 0 errors, 2 skipped" "no finding in the summary"
out=$(run_dirigo fuzz "$D/sum_long.lua" --strategy regular --cases 1 --max-elems 4000000 --json)
like "$out" '"findings": 0, "errors": 0, "skipped": 1' "--json: counted skipped, no finding"

out=$(run_dirigo fuzz "$D/sum_stuck.lua" --strategy regular --cases 2)
is "$(cat "$rcf")" 1 "a loop whose index never moves: a finding (exit 1)"
like "$out" "FINDING at case 0 .*pipe_loops.cu:[0-9]+:5: runaway-loop: loop cannot end: the registers its test reads repeat at its head" \
  "shown endless: runaway-loop at the loop's line"
done_testing
