#!/bin/sh
# dirigo check at sizes beyond memory (issue #4): --auto, finding nothing at
# the spec's sizes, checks a huge instance (one input past 2^31 elements,
# lazily filled; its output too when it has the input's shape) at the end of
# its huge dimension and prints the line that replays it. Not under valgrind (10 GiB reservations filled on touch);
# ASan runs it.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
rc_() { cat "${TMPDIR:-/tmp}/dg_rc.$$"; }

out=$(run_dirigo check "$S/embedding/embedding_int32.lua" --auto --no-journal --no-gpu)
is "$(rc_)" 1 "embedding_int32: check --auto finds the int32 overflow (exit 1)"
like "$out" "no finding at the spec's sizes; a huge instance .*: dirigo check [^ ]*embedding_int32.lua --size N=1 --size V=[0-9]+ --size D=[0-9]+ --at 0,[0-9]+" \
  "after no finding at the spec's sizes, it says the huge sizes and element as a command line"
like "$out" "^y\[0,[0-9]+\] +out-of-bounds +[^ ]*embedding_int32.cu:12:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of w" \
  "the verdict: an out-of-bounds load of w at a negative offset, with its line"
like "$out" "replayed on the emulator: block 0 of this instance" "the finding was replayed on the emulator"
line=$(printf '%s\n' "$out" | sed -n 's/.*huge instance.*: dirigo check //p' | head -1)
# shellcheck disable=SC2086
r=$(run_dirigo check $line --no-journal --no-gpu)
is "$(rc_)" 1 "the printed line checks that element alone ($line)"
like "$r" "out-of-bounds .* of w .*replayed on the emulator" "with the same verdict"

out=$(run_dirigo check "$S/embedding/embedding_int32.lua" --auto --json --no-journal --no-gpu)
like "$out" '"element":"y\[0,[0-9]+\]".*"verdict":"out-of-bounds".*"sizes":\{"N":1,"V":[0-9]{6,},"D":[0-9]+\}' \
  "--json: the huge element's object carries the sizes it ran at"

out=$(run_dirigo check "$S/embedding/embedding_gather.lua" --auto --no-journal --no-gpu)
is "$(rc_)" 0 "embedding_gather (64-bit row offsets): no finding"
like "$out" "huge instance .*--size V=[0-9]+ --size D=[0-9]+" "at the same huge sizes"
like "$out" "^y\[0,[0-9]+\] +equivalent .*index-valued inputs fixed to the top of their range" \
  "its huge elements are proved, with the ids at the top of their range"

out=$(run_dirigo check "$S/matmul/bmm_int32.lua" --auto --no-journal --no-gpu)
is "$(rc_)" 1 "bmm_int32: check --auto finds the int32 overflow"
like "$out" "huge instance .*--size B=[0-9]+ --size M=[0-9]+ --size N=[0-9]+ --size K=[0-9]+ --at [0-9]+,[0-9]+,[0-9]+" \
  "at the printed huge sizes"
like "$out" "out-of-bounds +[^ ]*bmm_int32.cu:[0-9]+:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of a .*block \([0-9]+,[0-9]+,[0-9]+\).*replayed on the emulator" \
  "an out-of-bounds load of a by the last batch's block, replayed"

out=$(run_dirigo check "$S/matmul/bmm_tiled.lua" --auto --no-journal --no-gpu)
is "$(rc_)" 0 "bmm_tiled: no finding"
like "$out" "^c\[[0-9]{4},[0-9]+,[0-9]+\] +equivalent" "its huge elements are proved equal"

out=$(run_dirigo check "$S/matmul/matmul_tiled_nomask.lua" --auto --no-journal --no-gpu)
is "$(rc_)" 1 "a bug at the spec's sizes is found there"
ok "! printf '%s\n' \"\$out\" | grep -q 'huge instance'" "and no huge instance is tried after it"

out=$(run_dirigo check "$S/atomics/histogram_smem.lua" --size N=2000000000 --at 3 --no-journal --no-gpu 2>&1)
is "$(rc_)" 2 "an index-valued input past 2^28 elements: an error verdict (exit 2), not an abort"
like "$out" "^h\[3\] +error +index-valued input 'x' has 2000000000 elements" "saying which tensor and why"
out=$(run_dirigo check "$S/atomics/scatter_add.lua" --size N=641 --size D=4194304 --at 0,4194303 --no-journal --no-gpu)
is "$(rc_)" 0 "2.7e9 threads: unknown (exit 0) at once"
like "$out" "unknown +not checked: at these sizes the writer search would run 2688548864 threads" "saying why"

out=$(run_dirigo check "$S/reduce/l2norm_atomic.lua" --auto --no-journal --no-gpu)
is "$(rc_)" 0 "l2norm_atomic (global atomics): no finding"
ok "! printf '%s\n' \"\$out\" | grep -q 'huge instance'" \
  "and no huge instance: its blocks communicate (it walked 2.7e9 atomics for minutes past --budget)"

out=$(run_dirigo check "$S/reduce/mean_rows_intdiv.lua" --size N=4194304 --size C=641 --at 4194303 --no-journal --no-gpu)
is "$(rc_)" 1 "a value bug at huge sizes: found (exit 1)"
like "$out" "^y\[4194303\] +bug +kernel [-0-9.e]+ vs reference [-0-9.e]+ \(witness replayed on the emulator\): block 524287 of this instance alone, inputs past 2\^28 elements filled lazily \(the witness's values where it names them\); the reference's term evaluated on the same values" \
  "replayed: the writer block alone with the witness's values, the reference's term on the same values (check_wide.c)"

# outputs as large as the input (softmax, cumsum: y has x's shape): the fuzzer's chooser keeps
# every other tensor under 2^22 elements, so these had no huge instance; now the output is a lazy
# reservation too and its writer comes from inverting the store address (no writer map spans it)
B=$DG_SRCDIR/t/data/bigout
out=$(run_dirigo check "$B/softmax_warp_int32.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 1 "softmax_warp with its row offset in int32: check --auto finds the overflow (exit 1)"
like "$out" "no finding at the spec's sizes; a huge instance .*: dirigo check [^ ]*softmax_warp_int32.lua --size N=[0-9]{8,} --size C=77 --at [0-9]+,76" \
  "at a huge instance whose rows grow and whose row length stays the spec's"
like "$out" "^y\[[0-9]+,76\] +out-of-bounds +[^ ]*softmax_warp_int32.cu:33:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of x .*block \([0-9]+,0,0\) thread \(0,0,0\).*replayed on the emulator: block [0-9]+ of this instance" \
  "an out-of-bounds load of x at a negative offset, with line, block and thread, replayed on the emulator"
line=$(printf '%s\n' "$out" | sed -n 's/.*huge instance.*: dirigo check //p' | head -1)
# shellcheck disable=SC2086
r=$(run_dirigo check $line --no-journal --no-gpu)
is "$(rc_)" 1 "the printed line checks that element alone ($line)"
sz=$(printf '%s\n' "$line" | sed 's/^[^ ]* //')
# shellcheck disable=SC2086
r=$(run_dirigo check "$S/softmax/softmax_warp.lua" $sz --no-journal --no-gpu)
is "$(rc_)" 0 "the correct softmax_warp at the same sizes and element: no finding"
like "$r" "^y\[[0-9]+,76\] +equivalent +proved equal" "it is proved equal to the reference there"
out=$(run_dirigo check "$S/softmax/softmax_warp.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 0 "softmax_warp --auto: no finding"
like "$out" "huge instance .*--size N=[0-9]{8,} --size C=77" "it reaches the huge instance"
like "$out" "^y\[[0-9]{8,},0\] +equivalent" "and proves its elements there"

out=$(run_dirigo check "$B/cumsum_warp_int32.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 1 "cumsum_warp with its row offset in int32: the overflow found (exit 1)"
like "$out" "^y\[[0-9]+,69\] +out-of-bounds +[^ ]*cumsum_warp_int32.cu:16:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of x.*replayed on the emulator" \
  "an out-of-bounds load of x, replayed"
out=$(run_dirigo check "$S/scan/cumsum_warp.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 0 "the correct cumsum_warp --auto: no finding"
like "$out" "^y\[[0-9]{8,},69\] +equivalent" "its huge elements are proved"

# transpose: y[N,M] from x[M,N] through a shared tile; its kernel reuses x and y for the output
# coordinates (a local assigned again in the body: the inversion takes its values in order)
out=$(run_dirigo check "$B/transpose_tiled_int32.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 1 "transpose_tiled with its input offset in int32: the overflow found (exit 1)"
like "$out" "^y\[[0-9]+,[0-9]{6,}\] +out-of-bounds +[^ ]*transpose_tiled_int32.cu:17:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of x .*block \([0-9]+,[0-9]+,0\).*replayed on the emulator" \
  "an out-of-bounds load of x in the writer's block, replayed"
out=$(run_dirigo check "$S/transpose/transpose_tiled.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 0 "the correct transpose_tiled --auto: no finding"
like "$out" "huge instance .*--size M=[0-9]{6,} --size N=[0-9]+" "it reaches a huge instance"
like "$out" "^y\[[0-9]+,[0-9]{6,}\] +equivalent" "and proves its elements there"

# the output's row offset in int32: no thread's store reaches the last element (the inversion proves it);
# the grid's last block, run once, shows the store that went to a negative offset instead
out=$(run_dirigo check "$B/softmax_warp_int32_store.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 1 "softmax_warp with its output row offset in int32: found (exit 1)"
like "$out" "^y\[[0-9]+,76\] +out-of-bounds +[^ ]*softmax_warp_int32_store.cu:41:[0-9]+: out-of-bounds: store of 4 bytes at byte -[0-9]+ of y .*the grid's last block: no thread's store address reaches the element.*replayed on the emulator" \
  "an out-of-bounds store of y in the grid's last block, replayed"
# kernels with a flat int thread id (attention_naive: idx = blockIdx.x * blockDim.x + threadIdx.x) are written
# for fewer than 2^31 threads: no instance past that (they cannot address it at all; not the bug looked for)
out=$(run_dirigo check "$S/attention/attention_naive.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 0 "attention_naive --auto: no finding"
ok "! printf '%s\n' \"\$out\" | grep -q 'huge instance'" "and no huge instance past 2^31 threads"

# what the inversion needed for these: a call passing only a shared-memory pointer (block_reduce(v, smem)),
# a local whose initialiser reads a variable assigned again (avgpool's hend reads hstart) but no address does
out=$(run_dirigo check "$S/softmax/softmax_block.lua" --size N=8947850 --size C=300 --at 8947849,299 --no-journal --no-gpu)
like "$out" "^y\[8947849,299\] +equivalent" "softmax_block at a huge output: its writer inverted past block_reduce(v, smem), proved"
out=$(run_dirigo check "$S/pool/avgpool2d.lua" --size N=12427569 --size C=3 --size H=8 --size W=9 --at 12427568,2,3,4 --no-journal --no-gpu)
like "$out" "^y\[12427568,2,3,4\] +equivalent" "avgpool2d at a huge instance (y past 2^22, lazy): proved"

# a huge output whose store addresses do not invert: unknown at once, saying why
out=$(run_dirigo check "$B/softmax_warp_putfn.lua" --size N=34861749 --size C=77 --at 34861748,76 --no-journal --no-gpu)
is "$(rc_)" 0 "a huge output stored through a call taking its pointer: no finding claimed (exit 0)"
like "$out" "^y\[34861748,76\] +unknown +not checked: 'y' has 2684354673 elements at these sizes, past memory, so its writer is found only by inverting the store addresses, and they did not invert: a call \(it may store\)" \
  "unknown at once, saying why (no writer search: no writer map spans the output)"
out=$(run_dirigo check "$S/softmax/softmax_warp.lua" --size N=34861749 --size C=77 --at 0,0 --no-journal --no-gpu)
like "$out" "^y\[0,0\] +equivalent" "the first element of a huge output: proved (its writer inverted)"
out=$(run_dirigo check "$S/norm/layernorm_block_nosync.lua" --size N=4473926 --size C=600 --at 4473925,599 --no-journal --no-gpu 2>&1)
ok "[ $(rc_) -ne 2 ] && [ $(rc_) -lt 128 ]" "a huge output: no error and no crash (exit $(rc_))"

# --explain says how index-valued inputs were fixed: at a huge instance, the top of their range
out=$(run_dirigo check "$S/embedding/embedding_gather.lua" --size N=1 --size V=42008576 --size D=64 --at 0,63 \
      --explain --no-journal --no-gpu)
like "$out" "note: index-valued input 'ids' is fixed to the top of its range in the symbolic run \\(a huge instance\\)" \
  "--explain at a huge instance: ids at the top of their range"
ok "! printf '%s\n' \"\$out\" | grep -q 'random in-range values in the symbolic run'" \
  "and not 'random in-range values'"

# --auto's budget holds in a huge instance's writer search too: cross_entropy's huge
# instance (N=4194304 rows, 1M blocks) took minutes and was killed by sweep's limit.
# (The sample's writer is now found by inverting its store address, check_invert.c;
# this copy passes a pointer to a __device__ function, which the inversion cannot see past.)
out=$(timeout 120 "$DIRIGO" check "$DG_SRCDIR/t/data/bigout/cross_entropy_ptrfn.cu" --auto --budget 3 --no-journal --no-gpu 2>&1)
st=$?
ok "[ $st -ne 124 ]" "cross_entropy_ptrfn --auto --budget 3 ends on its own (not killed after 120 s)"
# (at load 11 the budget can run out one stage earlier, drawing the random inputs of that search)
like "$out" "unknown +(the budget was spent finding the writer \\(launch 1: time limit reached after [0-9]+ of 1048576 blocks\\)|the check's budget is spent drawing the random inputs of the concrete run \\(targets: [0-9]+ of 4194304 elements\\))" \
  "its huge element is unknown: the budget was spent finding the writer (after how many blocks), or drawing its inputs"

# 2-D outputs and gathers past 2^31 elements with small inputs (matmul's C = M*N with K at the spec's,
# attention's S = B*H*T*T, embedding's y = N*D with the ids held): an instance whose target is the
# output (t/data/huge2d: copies of the mutation bench's cast mutants, the 64-bit cast dropped)
H=$DG_SRCDIR/t/data/huge2d
out=$(run_dirigo check "$H/matmul_tiled_int32.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 1 "matmul_tiled with its output offset row * N + col in int32: check --auto finds it (exit 1)"
like "$out" "huge instance .*: dirigo check [^ ]*matmul_tiled_int32.lua --size M=[0-9]{6,} --size N=[0-9]{4,} --size K=37 --at [0-9]+,[0-9]+"   "at an instance with M*N past 2^31 and the spec's K"
like "$out" "^c\[[0-9]+,[0-9]+\] +out-of-bounds +[^ ]*matmul_tiled_int32.cu:24:[0-9]+: out-of-bounds: store of 4 bytes at byte -[0-9]+ of c .*block \([0-9]+,[0-9]+,0\).*the grid's last block: no thread's store address reaches the element.*replayed on the emulator: block [0-9]+ of this instance"   "an out-of-bounds store of c at a negative offset in the grid's last block, replayed"
line=$(printf '%s\n' "$out" | grep -A1 'huge instance.*--size K=37' | sed -n 's/.*huge instance.*: dirigo check //p' | head -1)
sz=$(printf '%s\n' "$line" | sed 's/^[^ ]* //')
# shellcheck disable=SC2086
r=$(run_dirigo check "$S/matmul/matmul_tiled.lua" $sz --no-journal --no-gpu)
is "$(rc_)" 0 "the correct matmul_tiled at the same sizes and element: no finding ($sz)"
like "$r" "^c\[[0-9]+,[0-9]+\] +equivalent +proved equal" "it is proved equal to the reference there"
out=$(run_dirigo check "$S/matmul/matmul_tiled.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 0 "matmul_tiled --auto: no finding"
like "$out" "^c\[[0-9]{6,},[0-9]{4,}\] +equivalent" "its elements past 2^31 are proved"

out=$(run_dirigo check "$H/matmul_regtile_int32.lua" --auto --no-journal --no-gpu --budget 60)
is "$(rc_)" 1 "matmul_regtile's output offset in int32: found (exit 1)"
like "$out" "^c\[[0-9]+,[0-9]+\] +out-of-bounds +[^ ]*matmul_regtile_int32.cu:52:[0-9]+: out-of-bounds: store of 4 bytes at byte -[0-9]+ of c .*replayed on the emulator" \
  "an out-of-bounds store of c, replayed (its output instance checked before the fuzzer's, which walks K = 1281)"
# the inversion of matmul_regtile's store c[r, c] inside two unrolled loops (i, j): one solver
# constant for both loops' iteration counts made i == j, and no thread seemed to store c[., j != i]
out=$(run_dirigo check "$S/matmul/matmul_regtile.lua" --size M=2293760 --size N=1171 --size K=19 --at 2293759,1170 --no-journal --no-gpu)
like "$out" "^c\[2293759,1170\] +equivalent" "the correct matmul_regtile at a huge output, i != j: its writer inverted, proved"
# an early return of the body (`if (m >= M || n >= N) return;`) bounds the threads that store:
# without it thread (m - 1, n + N) of a grid wider than N seemed to store c[m, 0] too
out=$(run_dirigo check "$S/matmul/matmul_tn_naive.lua" --size M=147456 --size N=18205 --size K=6 --at 147455,0 --no-journal --no-gpu)
like "$out" "^c\[147455,0\] +equivalent" "matmul_tn_naive at c[M-1, 0] of a huge output: proved (the early return's guard)"

out=$(run_dirigo check "$H/attention_scores_int32.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 1 "attention_scores with its query offset (bh * T + i) * D in int32: found (exit 1)"
like "$out" "^s\[[0-9]+,0,[0-9]+,[0-9]+\] +out-of-bounds +[^ ]*attention_scores_int32.cu:22:[0-9]+: out-of-bounds: load of 4 bytes at byte -[0-9]+ of q .*replayed on the emulator" \
  "an out-of-bounds load of q, replayed (q past 2^31: B*H at the grid's limit, then D grown)"
out=$(run_dirigo check "$S/attention/attention_scores.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 0 "the correct attention_scores --auto: no finding"
like "$out" "^s\[[0-9]{5,},0,[0-9]{3,},[0-9]+\] +equivalent" "its huge elements are proved"

out=$(run_dirigo check "$H/embedding_gather_int32.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 1 "embedding_gather with its output row offset n * D in int32: found (exit 1)"
like "$out" "huge instance .*--size N=[0-9]{6,} --size V=11 --size D=[0-9]{3,}" \
  "at N*D past 2^31: the ids (index values, held) under 2^22, the row grown"
like "$out" "^y\[[0-9]+,[0-9]+\] +out-of-bounds +[^ ]*embedding_gather_int32.cu:12:[0-9]+: out-of-bounds: store of 4 bytes at byte -[0-9]+ of y .*replayed on the emulator" \
  "an out-of-bounds store of y, replayed"
out=$(run_dirigo check "$S/embedding/embedding_gather.lua" --auto --no-journal --no-gpu --budget 20)
is "$(rc_)" 0 "the correct embedding_gather --auto: no finding"
like "$out" "^y\[[0-9]{6,},[0-9]+\] +equivalent .*index-valued inputs fixed to the top of their range" \
  "its elements past 2^31 are proved, ids at the top of their range"
# attention_online's keys grow with T: no instance (the work of its last block at T = 2049, 1.3e7
# lane operations, is past the cap; its symbolic run there took 300 s and 3.7 GB past --budget 20)
out=$(timeout 120 "$DIRIGO" check "$S/attention/attention_online.lua" --auto --no-journal --no-gpu --budget 20 2>&1)
ok "! printf '%s\n' \"\$out\" | grep -q 'huge instance'" "attention_online: no huge instance (its last block's work grows with T)"

# the memory the huge check takes: address space beyond 10 GiB, resident far less
# (ASan reserves its shadow as address space: no limit there)
if [ -z "$ASAN_OPTIONS" ]; then
  r=$( (ulimit -v 16000000; "$DIRIGO" check "$S/matmul/bmm_int32.lua" --size B=2048 --size M=2048 --size N=1 \
        --size K=641 --at 2047,2047,0 --no-journal --no-gpu) 2>&1)
  like "$r" "out-of-bounds" "bmm_int32 at B=2048 M=2048 K=641 within 16 GB of address space: out-of-bounds"
else
  n=$((n+1)); echo "ok $n # skip the address-space limit under ASan"
fi
done_testing
