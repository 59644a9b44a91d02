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

# One Lua instruction of the reference that is seconds of term callbacks (session 12):
# max(table.unpack(t)) over 900,000 symbolic values, 8 s of terms in one C call, ran on
# past the deadline (the count hook looks only between instructions): 10.0 s of CPU under
# --budget 1.5, 14.7 s of wall (and the solver stage after it). The check's CPU seconds
# (the shell's times for its children, as t/cli/checkopaque.sh): the deadline is the wall
# clock's, so a loaded machine does less work before it, never more. It cannot pass by
# luck with the old code: wherever the deadline falls in the max it finishes the call
# (8 s of CPU); only where the ~1 s of CPU reading the values takes more than 3 s of wall
# (a third of a core) would the old hook stop it there too.
tmp="${TMPDIR:-/tmp}/dg_budget.$$"
cpu=$( { run_dirigo check "$DG_SRCDIR/t/data/budget/max_ref.lua" --at 3 --budget 3 --no-journal --no-gpu > "$tmp"; times; } |
       tail -1 | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.1f", s }')
out=$(cat "$tmp")
rm -f "$tmp"
is "$(cat "$rcf")" 0 "max_ref --budget 3: exit 0"
like "$out" "^y\[3\] +unknown +the check's budget is spent in the reference" "max_ref: unknown, the reference named as the stage that ran out"
ok "[ -n '$cpu' ] && [ \"\${cpu%.*}\" -lt 6 ]" "max_ref: stopped inside the fold, ${cpu} s of CPU under --budget 3 (10 s and more before)"

# The solver stage of 100,000 inputs (session 12): the bounds of every input (check_bounds,
# which looked at no clock) were one chain of 200,000 nested ands that Z3_solver_assert
# took minutes over (past 100 s of CPU under --budget 3), the query's time limit was
# computed before seconds of translation, and deleting the Z3 context came after the
# deadline too. Now the clock is looked at in each, the conjuncts are asserted one by one,
# and the context waits (smt_free past the deadline). CPU seconds again: the old code
# spends minutes in one Z3 call wherever the deadline falls after the reference.
tmp="${TMPDIR:-/tmp}/dg_budget.$$"
cpu=$( { run_dirigo check "$DG_SRCDIR/t/data/budget/bounds_ref.lua" --at 3 --budget 3 --no-journal --no-gpu > "$tmp"; times; } |
       tail -1 | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.1f", s }')
out=$(cat "$tmp")
rm -f "$tmp"
is "$(cat "$rcf")" 0 "bounds_ref --budget 3: exit 0"
like "$out" "^y\[3\] +unknown +.*(budget is spent|deadline)" "bounds_ref: unknown, the budget named"
ok "[ -n '$cpu' ] && [ \"\${cpu%.*}\" -lt 6 ]" "bounds_ref: ${cpu} s of CPU under --budget 3 (minutes before)"

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
