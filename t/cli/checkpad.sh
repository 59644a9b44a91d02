#!/bin/sh
# check --auto said `equivalent` (or `unknown`) where fuzz fails (the session 8
# mutation bench, t/data/checkpad/): a running max started at 0 instead of -inf
# in softmax_online and both attentions — the real model is shift-invariant,
# f32 is not: every exp of a row of large negative scores underflows and the
# row divides 0 by 0 (the f32 exp check's underflow push, now one sign per
# input tensor: attention's scores are large negative only for q and k of
# opposite signs; and the rows whose rescaling exp(m_old - m_new) stays at
# exp(0) are pushed too) — and rmsnorm_half's `c <= C`, which adds the next
# row's first value to a row's sum of squares (the inputs one side reads and
# the other does not, pushed to +-100 before the solver; it spent the whole
# budget on the first element, `unknown`). Each witness replays; each
# max-shifted original stays equivalent at the same element.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/checkpad
S=$DG_SRCDIR/samples
W=${TMPDIR:-/tmp}/dg_checkpad.$$
trap 'rm -rf "$W"' EXIT

for m in softmax_online_max0 attention_naive_max0 attention_online_max0; do
  out=$(run_dirigo check "$D/$m.lua" --auto --budget 20 --no-journal --no-gpu)
  rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
  is "$rc" 1 "$m: check --auto finds the bug (exit 1)"
  like "$out" "\] +bug +kernel -?nan vs reference .*found by the f32 exp check: for these inputs (every argument|arguments) of expf or exp2f falls? below the point where (it underflows|they underflow) to 0" \
    "$m: NaN where the reference is finite, by the underflow push"
done
out=$(run_dirigo check "$D/attention_naive_max0.lua" --at 1,1,6,7 --no-journal --no-gpu --explain)
like "$out" "q at -?200, k at -?200" "attention: q and k pushed apart (one sign per tensor)"
out=$(run_dirigo check "$D/softmax_online_max0.lua" --at 0,0 --no-journal --no-gpu)
like "$out" "y\[0,0\] +bug .*arguments of expf or exp2f fall below the point where they underflow to 0" \
  "softmax_online: not every argument underflows (the rescaling stays at exp(0)), a replay all the same"

# each witness replays (exit 1) from its file
mkdir -p "$W" && cp "$D"/softmax_online_max0.* "$D"/attention_online_max0.* "$D"/rmsnorm_half_le.* "$W"/
for m in softmax_online_max0:0,0 attention_online_max0:0,1,32,39 rmsnorm_half_le:0,0; do
  s=${m%%:*} at=${m#*:}
  run_dirigo check "$W/$s.lua" --at "$at" --no-gpu >/dev/null
  f=$(ls "$W"/.dirigo/witness-"$s"-*.json 2>/dev/null | head -n 1)
  ok "[ -n '$f' ]" "$s: a witness file"
  out=$(run_dirigo replay "$W/$s.lua" "$f")
  rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
  is "$rc" 1 "$s: dirigo replay of the witness reproduces it (exit 1)"
done

out=$(run_dirigo check "$D/rmsnorm_half_le.lua" --auto --budget 20 --no-journal --no-gpu)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "rmsnorm_half c <= C: check --auto finds it (was unknown after 20 s)"
like "$out" "y\[0,0\] +bug +kernel .* found by pushing the inputs that one side reads and the other does not" \
  "the next row's first value, read by the kernel only, pushed"
out=$(run_dirigo check "$D/rmsnorm_half_le.lua" --at 0,0 --no-journal --no-gpu --json)
like "$out" "\"seconds\":\{[^}]*\"solver\":0[,.}]" "no solver time spent on it"

# the originals (max from -inf, c < C) stay equivalent at the same elements
for m in softmax/softmax_online:0,0 attention/attention_naive:1,1,6,7 attention/attention_online:0,1,32,39 norm/rmsnorm_half:0,0; do
  s=${m%%:*} at=${m#*:}
  out=$(run_dirigo check "$S/$s.lua" --at "$at" --no-journal --no-gpu)
  rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
  is "$rc" 0 "$s: the correct original passes at $at"
  like "$out" "\] +equivalent" "$s: equivalent"
done
done_testing
