#!/bin/sh
# --budget in the stages it did not reach (session 7): the Lua reference's
# evaluation (a symbolic reference can spend seconds in term callbacks, far
# under the 10^9-instruction bound of a reference call) and the random fill of
# large inputs that are not lazy (2^28 elements took ~15 s). Each is cut at
# the deadline: `unknown`, saying which stage ran out. (t/data/budget/)
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
now() { date +%s; }

t0=$(now)
out=$(run_dirigo check "$DG_SRCDIR/t/data/budget/slow_ref.lua" --at 3 --budget 2 --no-journal --no-gpu)
t1=$(now)
is "$(cat "$rcf")" 0 "slow_ref --budget 2: exit 0 (unknown is no finding)"
like "$out" "^y\[3\] +unknown +the check's budget is spent in the reference \(its Lua evaluation was stopped after [0-9.]+ s" \
  "slow_ref: unknown, the reference named as the stage that ran out"
ok "[ $((t1 - t0)) -le 10 ]" "slow_ref: done in $((t1 - t0)) s (the reference alone takes ~20 s)"

# 2 x 6e7 inputs drawn at random for the writer search: more than a second anywhere
t0=$(now)
out=$(run_dirigo check "$DG_SRCDIR/samples/elementwise/residual_add.lua" --size N=60000000 --at 0 --budget 0.3 --no-journal --no-gpu)
t1=$(now)
is "$(cat "$rcf")" 0 "residual_add at N=6e7 --budget 0.3: exit 0"
like "$out" "^y\[0\] +unknown +the check's budget is spent drawing the random inputs of the concrete run \((x|r): [0-9]+ of 60000000 elements\)" \
  "residual_add: unknown, the random fill named as the stage that ran out"
ok "[ $((t1 - t0)) -le 5 ]" "residual_add: done in $((t1 - t0)) s"

# without a budget cut the same problem still checks (a smaller N)
out=$(run_dirigo check "$DG_SRCDIR/samples/elementwise/residual_add.lua" --size N=3000000 --at 2999999 --budget 30 --no-journal --no-gpu)
like "$out" "^y\[2999999\] +equivalent" "residual_add at N=3e6 with time to spare: equivalent (the chunked fill draws the same values)"

done_testing
