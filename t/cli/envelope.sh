#!/bin/sh
# The validator's envelope on a correct kernel whose order of summation is not
# the reference's: samples/matmul/matmul_warp (one warp an output, 32 strided
# lanes and a shuffle tree) under adversarial's large-offset values (case 8:
# b's rows alternate +-10^4, the reference's sequential sum cancels pair by
# pair, each lane sums one sign). Before the order term (session 8,
# gpu_env_dev.h's dge_fins) case 8 failed at spec sizes and 29 of 64 elements
# at K = 4096; every strategy must pass it now, and the seeded bugs next to it
# must still fail.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
P=$S/matmul/matmul_warp.lua

for s in regular boundary adversarial dtype-edge boundary+adversarial pow2-edge primes tail-sweep; do
  out=$(run_dirigo fuzz "$P" --strategy "$s" --cases 16)
  rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
  is "$rc" 0 "matmul_warp passes $s (16 cases)"
done

for w in "fuzz:adversarial:1:8@M=5,N=6,K=300" "fuzz:adversarial:1:8@M=8,N=8,K=4096" \
         "fuzz:adversarial:1:8@M=64,N=16,K=1024"; do
  out=$(run_dirigo replay "$P" "$w" --max-elems 1000000)
  rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
  is "$rc" 0 "matmul_warp, large-offset, $w: every element inside"
  like "$out" "large-offset" "  (the case holds large-offset values)"
done

# recall next to it: the seeded matmul bugs still fail the strategy that finds them
out=$(run_dirigo fuzz "$S/matmul/matmul_tiled_nomask.lua" --strategy adversarial --cases 16)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "matmul_tiled_nomask (missing tail mask) still fails adversarial"

# huge values (adversarial's case 2, near 1e37): a softmax that stores its
# input fails, the correct one passes. The order term once moved x - m by
# |x| 2^-22 (~1e31); exp overflowed and the non-finite evaluation passed the
# element whatever the kernel wrote (session 9: the term scales the
# cancellation inside an add's operands, dge_excess).
D=$DG_SRCDIR/t/data/envelope
out=$(run_dirigo replay "$D/softmax_copy.lua" fuzz:adversarial:1:2)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "softmax storing its input fails adversarial's huge case"
like "$out" "huge" "  (the case holds huge values)"
like "$out" "reference 0 \\(mismatch\\)" "  an element near 1e37 where the reference is 0 is a mismatch"
out=$(run_dirigo replay "$S/softmax/softmax_warp.lua" fuzz:adversarial:1:2)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "the correct softmax_warp passes the same case"
out=$(run_dirigo fuzz "$D/softmax_copy.lua" --strategy adversarial --cases 16)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "softmax storing its input fails adversarial"

# The non-finite rule (session 10): a kernel's Inf or NaN where fp32's own
# evaluation is finite is explained only by an overflow of some legitimate
# evaluation — fp32's order, or another order of one of the reference's sums
# whose terms of one sign reach FLT_MAX (gpu_env_dev.h's dge_order_ovf).
# softmax_minmax combines its warp max with fminf (a min/max swap): at huge
# values (case 2, |x| near 1e37) exp(x - m) overflows and rows are NaN, where
# no order of the correct softmax overflows (x - m <= 0). Up to session 9 an
# intermediate within 64x of FLT_MAX explained any Inf/NaN: it passed.
out=$(run_dirigo replay "$D/softmax_minmax.lua" fuzz:adversarial:1:2)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "softmax with fminf in its warp max fails adversarial's huge case"
like "$out" "kernel -?nan, reference [0-9.e+-]+ \\(nan-or-inf where the reference is finite\\)" \
  "  a NaN where the reference is finite is a failure"
for s in adversarial boundary+adversarial+huge; do
  out=$(run_dirigo fuzz "$D/softmax_minmax.lua" --strategy "$s" --cases 16)
  rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
  is "$rc" 1 "softmax with fminf in its warp max fails $s"
done
# and the correct kernels at the same values still pass, the sums among them
# whose tree or scan order overflows where the reference's does not
for p in softmax/softmax_warp softmax/softmax_block scan/cumsum_block reduce/sum_rows_smem; do
  for s in adversarial boundary+adversarial+huge; do
    out=$(run_dirigo fuzz "$S/$p.lua" --strategy "$s" --cases 16)
    rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
    is "$rc" 0 "$p passes $s"
  done
done
done_testing
