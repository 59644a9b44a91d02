#!/bin/sh
# Integer division or remainder by zero, and INT_MIN / -1, are undefined in
# C++; a GPU does not trap (the quotient is garbage). The engine reports them
# as a `division-by-zero` finding wherever it sees the divisor (fuzz, replay,
# the check's concrete and symbolic runs), and the check asks the solver
# whether a divisor loaded from an input can be 0 (or -1 under INT_MIN),
# replaying the model on the emulator: only a replayed event is a finding.
# Kernels: t/data/divzero/.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
D=$DG_SRCDIR/t/data/divzero
C="--no-journal --no-gpu --timeout 2 --budget 30"

# a divisor from an input: num[i] / den[i]
out=$(run_dirigo fuzz "$D/ratio_divmod.lua" --cases 10 --backend cpu)
is "$(cat "$rcf")" 1 "ratio_divmod: fuzz exits 1"
like "$out" "FINDING .*ratio_divmod.cu:9:17: division-by-zero: integer division by zero: -?[0-9]+ / 0 \(int\), undefined" \
  "ratio_divmod: fuzz reports the division by zero with its line and operands"
for at in 2 63; do
  # shellcheck disable=SC2086
  out=$(run_dirigo check "$D/ratio_divmod.lua" --at $at $C)
  is "$(cat "$rcf")" 1 "ratio_divmod y[$at]: check exits 1"
  like "$out" "^y\[$at\] +finding +[^ ]*ratio_divmod.cu:9:17: division-by-zero: integer division by zero: .* \(symbolic run: the solver found inputs that make the division undefined, replayed on the emulator; witness: .*den\[$at\] = 0" \
    "ratio_divmod y[$at]: the solver's zero divisor, replayed, with the witness"
done
t=$(( 63 % 32 ))
like "$out" "block \(1,0,0\) thread \($t,0,0\)" "ratio_divmod y[63]: the event is the writer's own thread (the replay runs its block)"

# guarded against 0 but not against -1: INT_MIN / -1
# shellcheck disable=SC2086
out=$(run_dirigo check "$D/ratio_guard0.lua" --at 5 $C)
is "$(cat "$rcf")" 1 "ratio_guard0: check exits 1"
like "$out" "^y\[5\] +finding .*division-by-zero: integer division overflows: -2147483648 / -1 \(int\).*witness: .*num\[5\] = -2147483648" \
  "ratio_guard0: INT_MIN / -1 found by the solver and replayed"

# fully guarded: the solver's zero reaches the merged term, the replay shows no event
# shellcheck disable=SC2086
out=$(run_dirigo check "$D/ratio_guarded.lua" --at 5 $C)
is "$(cat "$rcf")" 0 "ratio_guarded: no finding (exit 0)"
ok "! printf '%s\n' \"\$out\" | grep -q division-by-zero" "ratio_guarded: no division-by-zero claimed"
run_dirigo fuzz "$D/ratio_guarded.lua" --cases 20 --backend cpu >/dev/null
is "$(cat "$rcf")" 0 "ratio_guarded: fuzz is clean"

# a divisor from an argument: `len /= chunks` with chunks == 0 (the sum is right)
out=$(run_dirigo fuzz "$D/sum_chunks0.lua" --cases 5 --backend cpu)
is "$(cat "$rcf")" 1 "sum_chunks0: fuzz exits 1"
like "$out" "sum_chunks.cu:10:5: division-by-zero: integer division by zero: [0-9]+ / 0 \(int\)" \
  "sum_chunks0: fuzz reports len /= 0 at its line"
# shellcheck disable=SC2086
out=$(run_dirigo check "$D/sum_chunks0.lua" --at 39 $C)
is "$(cat "$rcf")" 1 "sum_chunks0: check exits 1"
like "$out" "^y\[39\] +finding +[^ ]*sum_chunks.cu:10:5: division-by-zero: integer division by zero: 37 / 0 \(int\)" \
  "sum_chunks0: check reports it (a correct value does not hide it)"
# shellcheck disable=SC2086
out=$(run_dirigo check "$D/sum_chunks4.lua" --at 39 $C)
is "$(cat "$rcf")" 0 "sum_chunks4 (4 chunks): no finding"
like "$out" "^y\[39\] +equivalent" "sum_chunks4: proved"

# the same in an initialiser of uniform values (the engine's uniform programs)
out=$(run_dirigo fuzz "$D/sum_chunks_expr0.lua" --cases 5 --backend cpu)
is "$(cat "$rcf")" 1 "sum_chunks_expr0: fuzz exits 1"
like "$out" "sum_chunks.cu:39:[0-9]+: division-by-zero: integer division by zero: [0-9]+ / 0 \(int\)" \
  "sum_chunks_expr0: fuzz reports (C + 0) / chunks at its line"

# a divisor from the launch: blockDim.x / 4 threads a team, 2 threads a block
out=$(run_dirigo fuzz "$D/sum_teams_small.lua" --cases 5 --backend cpu)
is "$(cat "$rcf")" 1 "sum_teams_small: fuzz exits 1"
like "$out" "sum_chunks.cu:25:[0-9]+: division-by-zero: integer division by zero: 0 / 0 \(unsigned int\)" \
  "sum_teams_small: fuzz reports threadIdx.x / 0 (unsigned)"
# shellcheck disable=SC2086
out=$(run_dirigo check "$D/sum_teams_small.lua" --at 39 $C)
is "$(cat "$rcf")" 1 "sum_teams_small: check exits 1"
like "$out" "^y\[39\] +finding .*division-by-zero" "sum_teams_small: check reports it"
# shellcheck disable=SC2086
out=$(run_dirigo check "$D/sum_teams.lua" --at 39 $C)
is "$(cat "$rcf")" 0 "sum_teams (128 threads a block): no finding"

# --json names the finding
# shellcheck disable=SC2086
out=$(run_dirigo check "$D/ratio_divmod.lua" --at 2 --json $C)
like "$out" '"verdict":"finding"' "--json: the verdict"
like "$out" '"division-by-zero"' "--json: the event's kind"

done_testing
