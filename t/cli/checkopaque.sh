#!/bin/sh
# --budget in the symbolic run of many out-of-bounds loads (session 10): each
# load the symbolic run cannot place is an opaque value, and each used to
# add a string to the term table's linear string lookup — quadratic: the
# 131,040 of t/data/budget/oob_opaque.lua took 143 s past --budget 2 (the
# loop's deadline is looked at every 4096 iterations, each one slower than
# the last). The loads are on a ?: side the concrete run never takes.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rc_() { cat "${TMPDIR:-/tmp}/dg_rc.$$"; }

# The check's CPU time (user + system, the shell's `times` for its children),
# not the wall clock: the deadline is the wall clock's, so on a loaded machine
# the check does less work before it, never more; the work after it (the stop
# is looked at every 4096 iterations) is what a wall-clock margin measured
# inflated by the load (past 10x the budget at load 10, session 10).
tmp="${TMPDIR:-/tmp}/dg_opaque.$$"
cpu=$( { run_dirigo check "$DG_SRCDIR/t/data/budget/oob_opaque.lua" --at 0 --budget 2 --json --no-journal --no-gpu > "$tmp"; times; } |
       tail -1 | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } printf "%.1f", s }')
out=$(cat "$tmp")
rm -f "$tmp"
is "$(rc_)" 1 "oob_opaque --budget 2: exit 1 (the loads are out of bounds)"
like "$out" '"verdict":"out-of-bounds","reason":"[^"]*oob_opaque.cu:8:57: out-of-bounds: load of 4 bytes at byte 128 of x[^"]*\(symbolic run\)' \
  "the symbolic run's finding"
sym=$(printf '%s\n' "$out" | sed -n 's/.*"symbolic":\([0-9.]*\).*/\1/p' | head -1)
# a margin of ten times the budget: the stage stops at the deadline, not 70 times past it
ok "[ -n '$cpu' ] && [ \"\${cpu%.*}\" -lt 20 ]" "the check stopped near the budget: ${cpu} s of CPU (symbolic run ${sym} s of wall; 143 s before)"
done_testing
