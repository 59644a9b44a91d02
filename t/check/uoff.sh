#!/bin/sh
# Unsigned 32-bit offsets in pointer arithmetic. `x + blockIdx.x * C` is an
# unsigned int product (unsigned int * int -> unsigned int): in bounds below
# 2^32 elements. The symbolic domain's 32-bit terms carry no signedness and a
# pointer's count was read as signed, so past 2^31 elements the symbolic run
# reported a load at a negative offset that the emulator never made (the
# layernorm_block cast mutant at N=4473926 C=600, session 6). The engine now
# zero-extends an unsigned count before the add. Its signed twin (`int row =
# blockIdx.x; x + row * C`) wraps for real and stays an out-of-bounds finding.
# Not under valgrind: x is a 10 GB reservation filled on touch.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
D=$DG_SRCDIR/t/data/uoff
# 40000000 rows of 64: the last row starts at element 2559999936 (past 2^31, below 2^32)
H="--size N=40000000 --size C=64 --at 39999999 --no-journal --no-gpu --budget 30"

for s in rowsum_u32 rowsum_u32_step; do
  # shellcheck disable=SC2086
  out=$(run_dirigo check "$D/$s.lua" $H)
  is "$(cat "$rcf")" 0 "$s (unsigned row offset) at 2.56e9 elements: no finding (exit 0)"
  like "$out" "^y\[39999999\] +equivalent +proved equal" "$s: the last row is proved equal, no out-of-bounds load"
done

# shellcheck disable=SC2086
out=$(run_dirigo check "$D/rowsum_i32.lua" $H)
is "$(cat "$rcf")" 1 "rowsum_i32 (signed row offset): exit 1"
like "$out" "^y\[39999999\] +out-of-bounds +[^ ]*rowsum_i32.cu:9:[0-9]+: out-of-bounds: load of 4 bytes at byte -6939869440 of x .*replayed on the emulator" \
  "rowsum_i32: the signed product wraps to byte -6939869440, found and replayed on the emulator"

# --auto reaches a huge instance by itself
out=$(run_dirigo check "$D/rowsum_u32.lua" --auto --no-journal --no-gpu --budget 30)
# (past 2^32 elements the unsigned offset wraps back into x: the last row reads another row, a
# wrong value that --auto's instance past 2^32 finds and replays; t/cli/checkwide.sh)
is "$(cat "$rcf")" 1 "rowsum_u32 --auto: past 2^32 elements a wrong row, no out-of-bounds (exit 1)"
like "$out" "huge instance .*--size N=[0-9]+ --size C=[0-9]+" "rowsum_u32 --auto: it checked a huge instance"
ok "! printf '%s\n' \"\$out\" | grep -q out-of-bounds" "rowsum_u32 --auto: no out-of-bounds claimed there"
out=$(run_dirigo check "$D/rowsum_i32.lua" --auto --no-journal --no-gpu --budget 30)
is "$(cat "$rcf")" 1 "rowsum_i32 --auto: the huge instance's overflow (exit 1)"
like "$out" "out-of-bounds .*rowsum_i32.cu:9:[0-9]+: .*at byte -[0-9]+ of x" "rowsum_i32 --auto: a negative offset into x"

# the emulator agrees: fuzz at the spec's sizes is clean for both
for s in rowsum_u32 rowsum_i32; do
  run_dirigo fuzz "$D/$s.lua" --cases 5 --backend cpu >/dev/null
  is "$(cat "$rcf")" 0 "$s: fuzz at small sizes is clean"
done

done_testing
