#!/bin/sh
# fuzz --budget S holds inside a case too: the inputs' fill, the emulator's run
# and the reference stop at the campaign's deadline, and the case cut there is
# not judged (skipped, saying where the budget ran out) — never a finding,
# never an error. Before, the budget was looked at between cases only: one
# case of rep_sum (10^9 loop iterations) ran for minutes past --budget 2.
# (Kernels: t/check/loop/pipe_loops.cu, t/data/budget/copy.cu.)
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
# at most 60 s (the uncut cases run for minutes): exit 124 then
run_dirigo_timeout() { timeout 60 "$DIRIGO" "$@"; echo $? > "$rcf"; }

# the emulator's run, cut: (timeout 60: the uncut case runs for minutes)
out=$(run_dirigo_timeout fuzz "$DG_SRCDIR/t/check/loop/rep_sum.lua" --strategy regular --cases 3 --budget 2)
is "$(cat "$rcf")" 0 "rep_sum --budget 2: the campaign ends, exit 0"
like "$out" "case 0 .* skipped +not judged: the campaign's budget \(--budget\) ran out in the kernel's run on the emulator" \
  "the case cut in the kernel's run is not judged, saying so"
like "$out" "1 cases: 0 pass, 0 fail, 0 findings, 0 errors, 1 skipped" "no finding, no error"

# the reference, cut
out=$(run_dirigo_timeout fuzz "$DG_SRCDIR/t/data/budget/slow_ref.lua" --strategy regular --cases 2 --budget 2)
is "$(cat "$rcf")" 0 "slow_ref --budget 2: exit 0"
like "$out" "case 0 .* skipped +not judged: the campaign's budget \(--budget\) ran out in the reference" \
  "the case cut in the reference is not judged, saying so"

# a budget that is not reached changes nothing
out=$(run_dirigo fuzz "$DG_SRCDIR/samples/elementwise/residual_add.lua" --cases 8 --budget 60)
is "$(cat "$rcf")" 0 "a budget not reached: exit 0"
like "$out" "8 cases: 8 pass, 0 fail" "every case judged"
done_testing
