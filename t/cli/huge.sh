#!/bin/sh
# dirigo fuzz --strategy huge: int32 index overflow past 2^31 elements on the
# emulator (lazily generated inputs, a sample of the blocks). Not under
# valgrind (the inputs are 10 GiB reservations filled on touch); ASan runs it.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
D=$DG_SRCDIR/t/data/huge
rc_() { cat "${TMPDIR:-/tmp}/dg_rc.$$"; }

out=$(run_dirigo fuzz "$S/embedding/embedding_int32.lua" --strategy huge)
is "$(rc_)" 1 "embedding_int32: the huge strategy finds the bug (exit 1)"
like "$out" "FINDING at case 0 .*huge" "as a finding of its first case"
like "$out" "embedding_int32.cu:12:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of w" \
  "an out-of-bounds load at a negative offset, with the line"
like "$out" "huge case: ran 1 of 1 blocks" "saying how many blocks ran"
w=$(printf '%s\n' "$out" | sed -n 's/.*replay: dirigo replay [^ ]* //p')
like "$w" "^fuzz:huge:1:0@N=[0-9]+,V=[0-9]+,D=[0-9]+$" "the witness spells out the huge sizes ($w)"
r1=$(run_dirigo replay "$S/embedding/embedding_int32.lua" "$w")
is "$(rc_)" 1 "replaying the witness finds it again"
like "$r1" "finding: .*out-of-bounds" "the same finding"
r2=$(run_dirigo replay "$S/embedding/embedding_int32.lua" "$w")
d1=$(printf '%s\n' "$r1" | sed -n 's/.*inputs digest //p')
d2=$(printf '%s\n' "$r2" | sed -n 's/.*inputs digest //p')
ok "[ -n '$d1' ] && [ '$d1' = '$d2' ]" "replays are the same case (digest $d1)"

out=$(run_dirigo fuzz "$S/embedding/embedding_gather.lua" --strategy huge)
is "$(rc_)" 0 "embedding_gather (64-bit offsets) passes at the same sizes"
like "$out" "3 pass, 0 fail, 0 findings" "every huge case passes (two past 2^31, one past 2^32)"

out=$(run_dirigo fuzz "$S/matmul/bmm_int32.lua" --strategy huge)
is "$(rc_)" 1 "bmm_int32: found"
like "$out" "bmm_int32.cu:[0-9]+:[0-9]+: out-of-bounds: load .* at byte -[0-9]+ of a .*block \(0,0,[0-9]+\)" \
  "an out-of-bounds load of a by the last batch's block"
like "$out" "huge case: ran [0-9] of [0-9]{5,} blocks" "a few of a hundred thousand blocks ran"

out=$(run_dirigo fuzz "$S/matmul/bmm_tiled.lua" --strategy huge --cases 1)
is "$(rc_)" 0 "bmm_tiled passes: elements of blocks that did not run are not reported unwritten"
like "$out" "1 cases: 1 pass" "one pass"

out=$(run_dirigo fuzz "$D/embedding_top.lua" --strategy huge)
is "$(rc_)" 1 "a gather wrong only past 2^31 fails on value validation"
like "$out" "FAIL at case 0 .*y\[0,[0-9]+\]: kernel .* \(mismatch\).*validated [0-9]+ elements they wrote" \
  "a mismatch among the elements the sampled blocks wrote"
out=$(run_dirigo fuzz "$D/embedding_top.lua" --cases 24)
is "$(rc_)" 0 "which no strategy at emulator sizes sees"

out=$(run_dirigo fuzz "$D/gather_add.lua" --strategy huge --cases 2)
is "$(rc_)" 0 "an accumulate output (y +=): the writer map says which elements the blocks stored"
like "$out" "2 cases: 2 pass" "the old contents of the other elements are not judged"

out=$(run_dirigo fuzz "$S/atomics/scatter_add.lua" --strategy huge --cases 1)
is "$(rc_)" 0 "global atomics: not a failure"
like "$out" "skipped +huge: skipped: atomicAdd at line [0-9]+ of .*scatter_add.cu: blocks communicate" \
  "skipped, naming the atomic"
out=$(run_dirigo fuzz "$S/reduce/l2norm_atomic.lua" --strategy huge --cases 1)
like "$out" "skipped +huge: skipped: a pipeline of 2 launches" "a pipeline is skipped with the reason"
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy huge --cases 1)
like "$out" "skipped +huge: skipped: no input of this problem passes 2\^31 elements" \
  "a problem without a huge case says so"
# the strategy's cases are an enumeration: once given, the campaign ends (no 39 'no admissible shape' lines)
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy huge)
like "$out" "^1 cases: 0 pass, 0 fail, 0 findings, 0 errors, 1 skipped" "a problem without a huge case: one skipped case, then the end"
ok "! printf '%s\\n' \"\$out\" | grep -q 'no admissible shape'" "no line for cases the strategy does not have"
out=$(run_dirigo fuzz "$S/embedding/embedding_gather.lua" --strategy huge)
like "$out" "^3 cases: 3 pass" "a problem with one input that can be made huge: its two cases past 2^31, one past 2^32, then the end"

out=$(run_dirigo fuzz "$S/embedding/embedding_int32.lua" --strategy boundary+adversarial+huge --cases 16)
is "$(rc_)" 1 "boundary+adversarial+huge finds embedding_int32"
like "$out" "at case 4 " "at its first huge case"
done_testing
