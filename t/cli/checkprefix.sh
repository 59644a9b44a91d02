#!/bin/sh
# A prefix of a real execution (session 10): attention_online with its q
# load's (size_t) cast dropped, `q[base + (i) * D + lane]`, overflows only
# past query 2^31 / D, where the writer's block then walks every key (2^25
# of them: hours on the emulator). Its q loads come before that loop. --auto
# keeps an instance whose last block is too long to run only when the first
# 2^23 lane operations of that block meet an engine finding; the check runs
# the writer's block to that prefix, and the replay and `dirigo replay` of
# the witness (which names the block and the prefix, and no values: the
# inputs are the seed's, lazily filled) stop at the same prefix. The correct
# kernel gets no such instance. Not under valgrind (lazy reservations); ASan runs it.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/prefix
W=${TMPDIR:-/tmp}/dg_checkprefix.$$
trap 'rm -rf "$W"' EXIT
rc_() { cat "${TMPDIR:-/tmp}/dg_rc.$$"; }

out=$(run_dirigo check "$D/attention_online_qint.lua" --auto --budget 20 --no-journal --no-gpu)
is "$(rc_)" 1 "attention_online_qint: check --auto finds the q load's overflow (exit 1)"
like "$out" "huge instance .*: dirigo check [^ ]*attention_online_qint.lua --size B=1 --size H=1 --size T=53687093 --size D=40 --at 0,0,53687092,39" \
  "at one sequence past 2^31 / D queries (B and H at 1: a later head's size_t base would carry the offset back in bounds)"
like "$out" "^o\[0,0,53687092,39\] +out-of-bounds +[^ ]*attention_online_qint.cu:38:25: out-of-bounds: load of 4 bytes .* of q " \
  "the verdict: the q load out of bounds, at its line"
like "$out" "\(concrete run on the emulator \(a prefix of the writer's block 13421773: its first 8388608 lane operations, where the run was cut\)\)" \
  "found in a prefix of the writer's block, and said so"
like "$out" "replayed on the emulator: block 13421773 of this instance, cut at the same prefix \(8388608 lane operations\)" \
  "replayed to the same prefix"

# the witness file of the element alone, and dirigo replay of it
mkdir -p "$W"
cp "$D/attention_online_qint.lua" "$D/attention_online_qint.cu" "$W/"
out=$(run_dirigo check "$W/attention_online_qint.lua" --size B=1 --size H=1 --size T=53687093 --size D=40 --at 0,0,53687092,39 --budget 20 --no-gpu)
is "$(rc_)" 1 "the element alone: exit 1"
wf=$(printf '%s\n' "$out" | sed -n 's/^ *witness: //p' | head -1)
ok "[ -f '$wf' ]" "a witness file is written ($wf)"
w=$(cat "$wf" 2>/dev/null)
like "$w" '"block":13421773,"max_lane_ops":8388608,"lazy_inputs":1,"inputs":\{\}' "it names the block and the prefix, and holds no values"
out=$(run_dirigo replay "$W/attention_online_qint.lua" "$wf")
is "$(rc_)" 1 "dirigo replay of it: exit 1"
like "$out" "out-of-bounds +[^ ]*attention_online_qint.cu:38:25: out-of-bounds: load of 4 bytes .* of q .*replayed on the emulator: block 13421773 of this instance alone, cut after its first 8388608 lane operations as in the check" \
  "the same finding, the block run alone to the same prefix"
sed 's/"block":13421773/"block":0/' "$wf" > "$W/first.json"
out=$(run_dirigo replay "$W/attention_online_qint.lua" "$W/first.json")
is "$(rc_)" 0 "the same witness naming block 0 (queries 0-3, in bounds): exit 0"
like "$out" "unknown +did not reproduce: block 0 of this instance, cut at the check's prefix, reported no finding" \
  "did not reproduce, said plainly"

out=$(run_dirigo check "$DG_SRCDIR/samples/attention/attention_online.lua" --auto --budget 20 --no-journal --no-gpu)
is "$(rc_)" 0 "the correct attention_online: no finding"
ok "! printf '%s\n' \"\$out\" | grep -q 'T=53687093'" "and no such instance (kept only on a prefix's finding)"
done_testing
