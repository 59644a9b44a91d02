#!/bin/sh
# The real model's exp never overflows; f32's does past 88.7 (inf / inf is
# NaN). After the real model's `equivalent`, the check pushes this element's
# exp arguments past that point and replays the inputs that do: softmax
# without its max shift is a bug at every element; with the shift (x - max
# <= 0) and for a sigmoid (1 / (1 + inf) = 0 is right) nothing replays.
# (Kernels: expo/softmax_exp.cu.)
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
D=$DG_SRCDIR/t/check/expo

for at in 0,0 1,4 2,9; do
  out=$(run_dirigo check "$D/smax_nomax.lua" --at $at --no-journal --no-gpu)
  is "$(cat "$rcf")" 1 "softmax without the max shift, y[$at]: a bug (exit 1)"
  like "$out" "^y\[$at\] +bug +kernel -?nan vs reference .*witness replayed on the emulator; found by the f32 exp check" \
    "y[$at]: NaN on the emulator, found by the f32 exp check"
done
out=$(run_dirigo check "$D/smax_nomax.lua" --auto --no-journal --no-gpu)
is "$(cat "$rcf")" 1 "smax_nomax --auto: exit 1 (it was equivalent on every element)"

out=$(run_dirigo check "$D/smax_nomax.lua" --at 0,0 --explain --no-journal --no-gpu)
like "$out" "witness: +every input of this element at 100" "--explain: the witness says which inputs"

# the witness file replays
tmp="${TMPDIR:-/tmp}/dg_expo.$$"
mkdir -p "$tmp" && cp "$D/smax_nomax.lua" "$D/softmax_exp.cu" "$tmp/"
out=$(run_dirigo check "$tmp/smax_nomax.lua" --at 1,4 --no-gpu)
is "$(cat "$rcf")" 1 "a copy: the bug, with a witness file"
w="$tmp/.dirigo/witness-smax_nomax-y-1-4.json"
ok "[ -f '$w' ]" "the witness file is written"
out=$(run_dirigo replay "$tmp/smax_nomax.lua" "$w")
is "$(cat "$rcf")" 1 "dirigo replay: it still differs (exit 1)"
rm -rf "$tmp"

# no false positives
for at in 0,0 1,9 2,5; do
  out=$(run_dirigo check "$D/smax_shift.lua" --at $at --no-journal --no-gpu)
  is "$(cat "$rcf")" 0 "max-shifted softmax y[$at]: exit 0"
  like "$out" "^y\[$at\] +equivalent" "max-shifted softmax y[$at]: equivalent"
done
out=$(run_dirigo check "$D/smax_shift.lua" --auto --no-journal --no-gpu)
is "$(cat "$rcf")" 0 "smax_shift --auto: exit 0"
out=$(run_dirigo check "$D/sigmoid.lua" --auto --no-journal --no-gpu)
is "$(cat "$rcf")" 0 "sigmoid --auto: exit 0 (expf(-x) overflows at x = -100, and 0 is right there)"
ok "! printf '%s' \"\$out\" | grep -qE '^[^ ]+ +bug '" "sigmoid: no bug"
done_testing
