/* gpu_env_dev.h — the kernel-precision envelope (fuzz_envelope.c's rule) for
 * the ops with a GPU reference (gpu_ref.c), written once for two compilers:
 * the includer defines DG_ENV_EMIT(...) as #__VA_ARGS__ (gpu_env.c: the text
 * becomes NVRTC source, with DG_DEV defined as __device__) or as __VA_ARGS__
 * (fuzz_envelope.c, the tests, the mock CUDA runtime: C functions, DG_DEV
 * defined as static inline). Inside: no preprocessor lines, no string or
 * character literals, only C that is also CUDA C++.
 *
 * What it computes, per element of the output (flat index):
 *  - dge_eval: the op's reference (lua/ops/<op>.lua) operation for operation,
 *    as fuzz_envelope.c's env32 evaluates the Lua reference: with round32
 *    every operation's result and every constant is rounded to float (the
 *    inputs are read exactly), max/min skip NaN (fmaxf/fminf); it records
 *    whether an operation on finite operands gave Inf (overflowed), whether a sum's
 *    terms of one sign reach fp32's overflow, so that an order adding them
 *    first overflows (order_overflow, round32 only: dge_order_ovf), and
 *    whether a NaN input was read. With perturb every input v read becomes
 *    v + d (v + copysign(maxin, v)), d = dge_perturb - 1 (below), nothing is
 *    rounded, and every operation that rounds in fp32 has its exact result
 *    scaled by 1 + delta (dge_perturb_op, at dge_fin: the standard model of
 *    a rounding, 4 times its size, so each of these evaluations is a sample
 *    of what another fp32 order of the same operations could give; a
 *    reduction's error grows with the number and size of its partial sums,
 *    which a perturbation of the inputs alone does not model). The inputs
 *    get a relative perturbation of up to 4 float ulps plus a normwise one
 *    of 4 ulps of maxin, the largest
 *    finite value the element's reference read from that same input tensor
 *    (recorded by the round32 pass; per tensor, so adamw's v = 0 stays 0
 *    whatever p and m hold, and its eps-misplaced bug still shows). Reductions in fp32 are backward stable normwise, not element by
 *    element: layernorm_block's mean (shift + sum(x - shift) / C) carries an
 *    error of an ulp of the shift x[0], which moves y where x is near the
 *    mean and w is 10^4 by 4e-4 relative; no few-ulps relative perturbation
 *    of the inputs explains that, a normwise one does.
 *  - dge_judge: within_envelope's verdict for a kernel value got against the
 *    fp64 reference want (1: inside the envelope, 0: a failure).
 *  - dge_perturb(flat, k, tensor, input flat): the backward-error test's
 *    perturbation, a function of a counter instead of an RNG stream:
 *    1 + 4 * 2^-24 * (2u - 1), u = the top 53 bits of a splitmix64 hash of
 *    (output element, evaluation k = 0..2, input tensor, input element) over
 *    2^53. The same input element gets the same factor at every read in one
 *    evaluation. fuzz_envelope.c's host rule uses this same function.
 *  - dge_perturb_op(dge_op_key(flat, k), class, n): an operation's
 *    1 + delta, the same amplitude, keyed by the operation's class and its
 *    place n among that class's operations (below, at dge_fin).
 *
 * The ops (kinds and modes as gpu_ref_plan's): 0 rows (n0 R, n1 C, n2 mode:
 * softmax, log_softmax, layernorm (eps p0), rmsnorm (eps p0)), 1 reduce (n0
 * N, n1 C, n2 dim, n3 mode: sum mean max min sumsq l2norm), 2 map (n0 count,
 * n1 mode: residual_add add mul scale relu sigmoid silu tanh gelu_erf
 * gelu_tanh leaky_relu elu; p0 the attribute), 3 matmul (n0 M, n1 N, n2 K, n3
 * bit 0 transA, bit 1 transB, bit 2 alpha is not an attribute (gemv); p0
 * alpha; the batch from the flat index), 4 conv2d (n0 N<<32|C, n1 H<<32|W,
 * n2 K<<32|R<<16|S, n3 OH<<32|OW; p0 stride, p1 padding, p2 dilation:
 * integers, read as they are — the host perturbs float attributes only).
 * Input dtypes as gpu_ref.c's dg_ld codes: 0 f32 1 f64 2 f16 3 bf16 4 i32
 * 5 i64 6 u8.
 *
 * DG_DEVN marks the functions the kernel calls rather than inlines (the
 * evaluator and the transcendental functions' bodies): NVRTC compiles the
 * kernel in 1 s instead of 4. None of them may take a dge_st (session 8:
 * dge_eval's state then lives in local memory, a load and a store an
 * operation); a read and its perturbation are inlined since, which costs
 * compile time (nvcc -cubin, user CPU on the loaded development machine:
 * 18.7 s before, 22.1 s after — NVRTC's 120 s watchdog is reached only
 * when the machine is that loaded, as the old text was too: 146 s real). */
#ifndef DG_DEVN
#define DG_DEVN DG_DEV
#endif
DG_ENV_EMIT(
/* An evaluation's value and facts computed elsewhere (the device's matmul in
 * windows, dge_mm_* below): dge_eval returns them instead of evaluating when
 * dge_st.pre is set — pre[0] the round32 pass (with its maxin), pre[1 + k]
 * the perturbed evaluation k. A new fact of the evaluation goes here, in
 * dge_eval_pre and in dge_mm_merge too. */
typedef struct {
  double r, maxin[3];
  int overflowed, order_overflow, nan_input, nan_cmp;
} dge_res;

typedef struct {
  int round32, perturb, k;
  int absorb;                  /* with round32: adds and subs exact (the absorbing evaluation, dge_absorbs) */
  long long flat;
  unsigned long long opkey;    /* dge_op_key(flat, k), set by dge_eval */
  unsigned long long rkey;     /* dge_read_key(flat, k), set by dge_eval: the reads' (dge_pert) */
  unsigned ocnt[12];           /* per class: the operations so far in this evaluation (dge_fin) */
  double sh;                   /* the last add's or sub's shadow: the sum of |terms| it adds (dge_fins) */
  double maxin[3], scale[3];   /* per input: its largest finite value read (round32 pass); the normwise scale */
  int overflowed, nan_input;
  int order_overflow;          /* round32: a sum another order would overflow (dge_order_ovf) */
  int nan_cmp;                 /* a comparison, max or min read a NaN, or a where's condition was NaN */
  const void *in[3];
  int dt[3];
  long long tid[3];
  const dge_res *pre;          /* NULL, or the evaluations' results (dge_eval_pre) */
  int given;                   /* the next add's 1 + delta and delta2 are gf, gd2 (dge_op2, dge_mm_link) */
  double gf, gd2;
} dge_st;

DG_DEV int dge_isnan(double x) { return x != x; }
DG_DEV int dge_isfinite(double x) { return x - x == 0; }
DG_DEV int dge_isinf(double x) { return x == x && x - x != 0; }

DG_DEV unsigned long long dge_mix(unsigned long long z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* dge_perturb in two halves: the key of (flat, k), the same for every read
 * of one evaluation (dge_st.rkey, set by dge_eval), and the read's own */
DG_DEV unsigned long long dge_read_key(long long flat, int k)
{
  return dge_mix((unsigned long long)flat * 0x9e3779b97f4a7c15ULL + (unsigned long long)k);
}

DG_DEV double dge_perturb_rk(unsigned long long rkey, long long t, long long in)
{
  unsigned long long h = dge_mix(rkey ^ ((unsigned long long)t + 1) * 0xc2b2ae3d27d4eb4fULL ^ (unsigned long long)in);
  double u = (double)(h >> 11) * 0x1p-53;
  return 1 + 4 * 0x1p-24 * (2 * u - 1);
}

DG_DEV double dge_perturb(long long flat, int k, long long t, long long in)
{
  return dge_perturb_rk(dge_read_key(flat, k), t, in);
}

DG_DEV float dge_u2f(unsigned u)
{
  union { unsigned u; float f; } c;
  c.u = u;
  return c.f;
}

DG_DEV unsigned dge_f2u(float f)
{
  union { unsigned u; float f; } c;
  c.f = f;
  return c.u;
}

DG_DEV double dge_f16(unsigned h)
{
  unsigned sign = (h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (ex == 0) {
    float v = (float)mant * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (ex == 31) return dge_u2f(sign | 0x7f800000u | (mant << 13));
  return dge_u2f(sign | ((ex + 112) << 23) | (mant << 13));
}

DG_DEV double dge_ld(const void *p, int t, long long i)
{
  if (t == 0) return ((const float *)p)[i];
  if (t == 1) return ((const double *)p)[i];
  if (t == 2) return dge_f16(((const unsigned short *)p)[i]);
  if (t == 3) return dge_u2f((unsigned)((const unsigned short *)p)[i] << 16);
  if (t == 4) return ((const int *)p)[i];
  if (t == 5) return (double)((const long long *)p)[i];
  return ((const unsigned char *)p)[i];
}

DG_DEV unsigned dge_to_f16(float f)
{
  unsigned x = dge_f2u(f), sign = (x >> 16) & 0x8000u, absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u | ((absx >> 13) & 0x3ffu) : 0u);
  if (absx >= 0x477ff000u) return sign | 0x7c00u;
  if (absx < 0x38800000u) {
    float s = dge_u2f(absx) * 16777216.0f;
    unsigned m = (unsigned)s;
    float rest = s - (float)m;
    if (rest > 0.5f || (rest == 0.5f && (m & 1u))) m++;
    return sign | m;
  }
  unsigned mant = absx & 0x7fffffu, ex = (absx >> 23) - 112;
  unsigned h = (ex << 10) | (mant >> 13), rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
  return sign | h;
}

DG_DEV unsigned dge_to_bf16(float f)
{
  unsigned x = dge_f2u(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return ((x >> 16) | 0x40u) & 0xffffu;
  x += 0x7fffu + ((x >> 16) & 1u);
  return x >> 16;
}

DG_DEV double dge_round_dt(int t, double v)
{
  if (t == 0) return (float)v;
  if (t == 2) return dge_f16(dge_to_f16((float)v));
  if (t == 3) return dge_u2f(dge_to_bf16((float)v) << 16);
  return v;
}

/* The largest finite value of output dtype t (dge_round_dt's codes). */
DG_DEV double dge_dt_max(int t)
{
  if (t == 0) return 0x1.fffffep127;
  if (t == 2) return 65504.0;
  if (t == 3) return 0x1.fep127;
  return 0x1.fffffffffffffp1023;
}

/* fp64's value as the envelope judges a finite kernel value against it
 * (session 12): r64, fp64's want rounded to the output dtype, where that is
 * finite; where want is finite past the dtype's largest value hi (r64 = Inf),
 * hi with want's sign, the finite value nearest to it; NaN where fp64 gives
 * no number (want NaN or +-Inf). Up to session 11 a finite kernel value
 * where r64 is not finite and fp32's own value is passed outright (the host's
 * slack 2 |r32 - r64| was infinite). */
DG_DEV double dge_center(double r64, double want, double hi)
{
  if (dge_isfinite(r64)) return r64;
  return dge_isfinite(want) ? (want < 0 ? -hi : hi) : want - want;
}

/* A finite kernel value where fp32's own value is not finite (session 11's
 * branch of dge_judge_part and within_envelope, which says more): inside (1)
 * where an overflow (overflowed, order_overflow) may have been absorbed in
 * another order and the value is that order's (absorbed: dge_absorbs; up to
 * session 13 any finite value passed where fp32 overflowed; otherwise an
 * order that overflows nowhere gives about fp64's value: 2, the
 * backward-error test's, around fp64 clamped where fp64 is past the dtype's
 * largest value), or where fp64 gives NaN and a comparison, a max or a min
 * of fp32's evaluation read a NaN (nan_cmp: a kernel may write the negated
 * comparison, x < 0 ? a x : x for where(x > 0, x, a x), or fmaxf(x, 0) +
 * a fminf(x, 0), and take the other, finite, branch; softmax_online's lane
 * whose fmaxf skipped a NaN keeps m = -Inf, and its merge's guard m == -Inf
 * drops the lane's NaN sum: the row's softmax without the NaN); outside (0)
 * where fp64 is not finite otherwise — a NaN or Inf that came from the
 * inputs' Inf or NaN or an invalid operation through arithmetic alone, no
 * overflow, is non-finite in every order of the reference (session 12,
 * val16; up to then fp64 NaN passed any finite value here); else (2) fp64
 * is finite: the backward-error test judges. */
DG_DEV int dge_r32_nonfinite(double r64, int overflowed, int order_overflow, int nan_cmp, int absorbed)
{
  int ovf = overflowed || order_overflow;
  if (ovf && absorbed) return 1;
  if (dge_isnan(r64)) return nan_cmp;
  if (!dge_isfinite(r64)) return ovf ? 2 : 0;
  return 2;
}

/* Is a finite kernel value got the value of an order that absorbed fp32's
 * overflow? ra: the absorbing evaluation's (round32 with every add and sub
 * exact: an order of the sums that never overflows, Welford's running mean,
 * while products, squares, exps and divisions overflow as fp32's do),
 * rounded to float. Layernorm at [1e37, 2e37): the reference's sum
 * overflows (NaN), the exact mean does not, (x - mean)^2 does, rsqrt(Inf) =
 * 0 and ra = b, Welford's value. The tolerance alone: the absorbing
 * operations give exact zeros (rsqrt(Inf), x / Inf, exp(-Inf)), and what
 * follows is fp32 arithmetic on finite values (every element of the samples'
 * campaigns: got = ra bit for bit; doc/strategies.md, session 13). The
 * evaluation runs where a finite value meets an overflow in this branch
 * only (dge_judge_part: serially for a matmul too, e->pre aside). */
DG_DEV int dge_absorbs(double ra, double got, double atol, double rtol)
{
  return dge_isfinite(ra) && fabs(got - ra) <= atol + rtol * fabs(ra);
}

/* A perturbed evaluation rp's part in the verdict for a finite kernel value
 * got (session 12): one that is not finite explains nothing (0; up to
 * session 11 it passed got wherever fp32's own value is finite); with a
 * centre c (dge_center, finite) its distance from want joins *cond (0, the
 * backward-error test's); without one, got is inside (1) when within the
 * tolerance of fp32's own value r32 plus 4 times rp's distance from r32. */
DG_DEV int dge_sample(double rp, double c, double want, double r32, double got, double atol, double rtol,
                      double *cond)
{
  if (!dge_isfinite(rp)) return 0;
  if (dge_isfinite(c)) {
    *cond = fmax(*cond, fabs(rp - want));
    return 0;
  }
  return fabs(got - r32) <= atol + rtol * fabs(r32) + 4 * fabs(rp - r32);
}

/* A read in two parts: the raw load (dge_ld, pure) and the rest (dge_use:
 * the perturbation, maxin, the NaN note — all order-free, max
 * and or). The hot loops (rows, reduce, matmul) load the raw values of their
 * next 8 reads first (dge_ld8) and then use them one by one in the order of
 * dge_rd's calls: only the loads move, every operation and rounding stays.
 * A warp issues in order, so a read whose value is needed at once waits a
 * full memory latency; 8 loads in flight wait one. */
DG_DEV double dge_pert(const dge_st *e, int s, long long i, double v)
{   /* v (1 + d) + d * copysign(scale, v): relative and normwise; an Inf or
     * NaN as it is (session 12: -Inf + d (-Inf) was NaN for d < 0, and a
     * masked softmax row's perturbed evaluations NaN) */
  if (!dge_isfinite(v)) return v;
  double d = dge_perturb_rk(e->rkey, e->tid[s], i) - 1;
  return v + d * (v + (v < 0 ? -e->scale[s] : e->scale[s]));
}

DG_DEV double dge_use(dge_st *e, int s, long long i, double v)
{
  if (e->perturb) v = dge_pert(e, s, i, v);
  else if (dge_isfinite(v) && fabs(v) > e->maxin[s]) e->maxin[s] = fabs(v);
  if (dge_isnan(v)) e->nan_input = 1;
  return v;
}

DG_DEV double dge_rd(dge_st *e, int s, long long i) { return dge_use(e, s, i, dge_ld(e->in[s], e->dt[s], i)); }

/* The raw values of reads i, i + step, ..., i + 7 step (all in the tensor:
 * the loops call it for whole groups of 8 only, the rest read one by one). */
DG_DEV void dge_ld8(const dge_st *e, int s, long long i, long long step, double *v)
{
  const void *p = e->in[s];
  int t = e->dt[s];
  if (t == 0) {
    const float *q = (const float *)p + i;
    for (int j = 0; j < 8; j++) v[j] = q[j * step];
    return;
  }
  for (int j = 0; j < 8; j++) v[j] = dge_ld(p, t, i + j * step);
}

DG_DEV double dge_c(const dge_st *e, double v) { return e->round32 ? (double)(float)v : v; }

/* The rounding-error model of the perturbed evaluations (the standard model
 * fl(a op b) = (a op b)(1 + delta)): every operation that rounds (class cls
 * > 0: 1 add, 2 sub, 3 mul, 4 div, 5 exp, 6 log, 7 sqrt, 8 rsqrt, 9 tanh,
 * 10 erf, 11 pow; max, min, neg, comparisons and where are exact: 0) has
 * its exact result scaled by 1 + delta, delta uniform in +-4 2^-24,
 * a function of (output element, evaluation k, cls, n) where n counts the
 * operations of class cls so far in this evaluation (dge_st.ocnt, reset by
 * dge_eval). Keyed by each class's own count, not by the operands (session
 * 7's first version hashed the running value, which put the hash on the
 * evaluation's serial chain: 2.1x the time of a perturbed evaluation; a
 * count is known ahead, so the hash runs beside the chain) and not by one
 * count over every operation: the host evaluates the Lua reference
 * (fuzz_envelope.c's v32_apply, in Lua's order) and this code its own order
 * of the same operations — layernorm takes rsqrt before x - mean — which
 * keeps the order within each class. env.t compares every sample's
 * perturbed evaluations bit for bit with the host's (on the H200 too), so a
 * reordering within a class shows there. No call here has two arguments
 * that both hold operations of one class (C leaves their order open).
 * fuzz_envelope.c's comment says why the model is sound. */
DG_DEV unsigned long long dge_op_key(long long flat, int k)
{
  return dge_mix(((unsigned long long)flat * 0x9e3779b97f4a7c15ULL + (unsigned long long)k) ^ 0x5851f42d4c957f2dULL);
}

DG_DEV double dge_perturb_op(unsigned long long key, int cls, unsigned n)
{
  unsigned long long h = dge_mix(key ^ (unsigned long long)cls * 0xc2b2ae3d27d4eb4fULL ^ (unsigned long long)n * 0x9e3779b97f4a7c15ULL);
  double u = (double)(h >> 11) * 0x1p-53;
  return 1 + 4 * 0x1p-24 * (2 * u - 1);
}

DG_DEV double dge_fin(dge_st *e, int cls, double r, double a0, double a1, int arity)
{
  if (e->round32) r = (double)(float)r;
  else if (e->perturb && cls) r *= dge_perturb_op(e->opkey, cls, e->ocnt[cls]++);
  if (dge_isinf(r) && dge_isfinite(a0) && (arity < 2 || dge_isfinite(a1))) e->overflowed = 1;
  return r;
}

/* An add's or a sub's 1 + delta (dge_perturb_op's, the same hash) and its
 * order term's delta2, uniform in +-4 2^-24 from the hash's low 32 bits. */
DG_DEV double dge_perturb_op2(unsigned long long key, int cls, unsigned n, double *d2)
{
  unsigned long long h = dge_mix(key ^ (unsigned long long)cls * 0xc2b2ae3d27d4eb4fULL ^ (unsigned long long)n * 0x9e3779b97f4a7c15ULL);
  double u = (double)(h >> 11) * 0x1p-53, u2 = (double)(h & 0xffffffffULL) * 0x1p-32;
  *d2 = 4 * 0x1p-24 * (2 * u2 - 1);
  return 1 + 4 * 0x1p-24 * (2 * u - 1);
}

/* An add's or a sub's 1 + delta and delta2 in a perturbed evaluation:
 * dge_perturb_op2's at the class's count, or the ones the caller drew
 * beside the evaluation (e->given: dge_mm_link; the count still moves). */
DG_DEV double dge_op2(dge_st *e, int cls, double *d2)
{
  unsigned n = e->ocnt[cls]++;
  if (e->given) {
    *d2 = e->gd2;
    return e->gf;
  }
  return dge_perturb_op2(e->opkey, cls, n, d2);
}

/* The order term's weight: the shadow's share a kernel's own partial sums
 * may reach (fuzz_envelope.c's comment says why this much). */
DG_DEV double dge_ord(void) { return 0.5; }

/* What the order term scales: the cancellation inside an add's operands,
 * sh - |a| - |b| (their shadows less their magnitudes), not the shadow
 * itself. Another order's partial sums can exceed this order's only by
 * terms that cancelled here; two values that are no sums have one order,
 * and moving x - m by 2^-22 |x| made exp(x - m) of a softmax over inputs
 * near 1e37 overflow, which passed any output (session 9). */
DG_DEV double dge_excess(double sh, double a0, double a1)
{
  double ex = sh - fabs(a0) - fabs(a1);
  return ex > 0 ? ex : 0;
}

/* Could another order of a sum's terms overflow in fp32? sh is the sum of
 * the |terms| (the shadow), r this order's result: the terms of one sign sum
 * to P = (sh + r) / 2 and -N = -(sh - r) / 2 (to this order's rounding), any
 * order's partial sums lie in [-N, P], and the order that adds the larger
 * side's terms first reaches max(P, N) = (sh + |r|) / 2: it overflows when
 * that rounds past FLT_MAX, at 2^128 - 2^103 (half an ulp above FLT_MAX).
 * Two values that are no sums have one order, and there it is the
 * operation's own overflow. This is the non-finite rule's test (dge_judge_part,
 * fuzz_envelope.c's within_envelope): a kernel's Inf or NaN is explained by
 * an overflow, in the reference's order (overflowed) or in another order of
 * one of its sums (this), and by nothing else — not by an intermediate near
 * FLT_MAX (up to session 9: maxmag > 2^122, which passed a softmax with its
 * max and min swapped at huge values, exp(x - min) = Inf where no order of
 * the correct softmax overflows). Not modelled: the rounding of the partial
 * sums themselves (a relative window of about n 2^-24 around the bound) and
 * a cancelling sum that another order makes exactly 0 before a division. */
DG_DEV int dge_order_ovf(double sh, double r)
{
  return dge_isfinite(r) && (sh + fabs(r)) / 2 >= 0x1p128 - 0x1p103;
}

/* An add or a sub (class 1 or 2) with its shadow sh, the sum of |terms| it
 * adds (its operands' shadows added; a value no add or sub made is its own
 * |v|). A perturbed evaluation also moves the result by the order term:
 * fl(a + b) = (a + b)(1 + delta) + delta2 dge_ord() dge_excess(sh, a, b) —
 * the rounding of a partial sum of another order of the same terms, which
 * may be as large as the terms' sum of magnitudes where this order's
 * partial sums cancel.
 * e->sh: sh, for the caller's running sum. */
DG_DEV double dge_fins(dge_st *e, int cls, double r, double sh, double a0, double a1)
{
  e->sh = sh;
  if (e->round32 && e->absorb) {
    /* the absorbing evaluation: an order of the sums that never overflows */
  } else if (e->round32) {
    r = (double)(float)r;
    if (dge_order_ovf(sh, r)) e->order_overflow = 1;
  } else if (e->perturb) {
    double d2, f = dge_op2(e, cls, &d2);
    r = r * f + d2 * (dge_ord() * dge_excess(sh, a0, a1));
  }
  if (dge_isinf(r) && dge_isfinite(a0) && dge_isfinite(a1)) e->overflowed = 1;
  return r;
}

DG_DEV double dge_adds(dge_st *e, double a, double sa, double b, double sb) { return dge_fins(e, 1, a + b, sa + sb, a, b); }
DG_DEV double dge_subs(dge_st *e, double a, double sa, double b, double sb) { return dge_fins(e, 2, a - b, sa + sb, a, b); }
DG_DEV double dge_add(dge_st *e, double a, double b) { return dge_adds(e, a, fabs(a), b, fabs(b)); }
DG_DEV double dge_sub(dge_st *e, double a, double b) { return dge_subs(e, a, fabs(a), b, fabs(b)); }
/* a running sum's step s + t, *ss the shadow of s (updated) */
DG_DEV double dge_acc(dge_st *e, double s, double *ss, double t)
{
  double r = dge_adds(e, s, *ss, t, fabs(t));
  *ss = e->sh;
  return r;
}
DG_DEV double dge_mul(dge_st *e, double a, double b) { return dge_fin(e, 3, a * b, a, b, 2); }
DG_DEV double dge_div(dge_st *e, double a, double b) { return dge_fin(e, 4, a / b, a, b, 2); }
DG_DEV double dge_neg(dge_st *e, double a) { return dge_fin(e, 0, -a, a, 0, 1); }
/* the transcendental functions' bodies apart (DG_DEVN: called, not inlined —
 * they take no dge_st, so the evaluation's state stays in registers) */
DG_DEVN double dge_exp_v(double a) { return exp(a); }
DG_DEVN double dge_log_v(double a) { return log(a); }
DG_DEVN double dge_tanh_v(double a) { return tanh(a); }
DG_DEVN double dge_erf_v(double a) { return erf(a); }
DG_DEV double dge_exp(dge_st *e, double a) { return dge_fin(e, 5, dge_exp_v(a), a, 0, 1); }
DG_DEV double dge_log(dge_st *e, double a) { return dge_fin(e, 6, dge_log_v(a), a, 0, 1); }
DG_DEV double dge_sqrt(dge_st *e, double a) { return dge_fin(e, 7, sqrt(a), a, 0, 1); }
DG_DEV double dge_rsqrt(dge_st *e, double a) { return dge_fin(e, 8, 1.0 / sqrt(a), a, 0, 1); }
DG_DEV double dge_tanh(dge_st *e, double a) { return dge_fin(e, 9, dge_tanh_v(a), a, 0, 1); }
DG_DEV double dge_erf(dge_st *e, double a) { return dge_fin(e, 10, dge_erf_v(a), a, 0, 1); }
/* a comparison, max or min on a NaN, and a where on a NaN condition, note it
 * (nan_cmp: a kernel's comparison may as well be the negated one, and a
 * kernel may gate on a max that skipped the NaN; dge_r32_nonfinite) */
DG_DEV double dge_gt(dge_st *e, double a, double b)
{
  if (dge_isnan(a) || dge_isnan(b)) e->nan_cmp = 1;
  return dge_fin(e, 0, a > b ? 1.0 : 0.0, a, b, 2);
}
DG_DEV double dge_where(dge_st *e, double c, double a, double b)
{
  if (dge_isnan(c)) e->nan_cmp = 1;
  return dge_fin(e, 0, c != 0 ? a : b, c, a, 3);
}
DG_DEV double dge_max(dge_st *e, double a, double b)
{
  if (dge_isnan(a) || dge_isnan(b)) e->nan_cmp = 1;
  double r = dge_isnan(a) || dge_isnan(b) ? (dge_isnan(a) ? b : a) : a > b ? a : b;
  return dge_fin(e, 0, r, a, b, 2);
}
DG_DEV double dge_min(dge_st *e, double a, double b)
{
  if (dge_isnan(a) || dge_isnan(b)) e->nan_cmp = 1;
  double r = dge_isnan(a) || dge_isnan(b) ? (dge_isnan(a) ? b : a) : a < b ? a : b;
  return dge_fin(e, 0, r, a, b, 2);
}

DG_DEV double dge_rows(dge_st *e, long long flat, long long C, long long mode, double eps)
{
  long long base = flat / C * C, c = flat % C, k;
  double x[8];
  if (mode <= 1) {
    double m = dge_rd(e, 0, base);
    for (k = 1; k + 8 <= C; k += 8) {
      dge_ld8(e, 0, base + k, 1, x);
      for (int j = 0; j < 8; j++) m = dge_max(e, m, dge_use(e, 0, base + k + j, x[j]));
    }
    for (; k < C; k++) m = dge_max(e, m, dge_rd(e, 0, base + k));
    double s = dge_c(e, 0), ss = 0;
    for (k = 0; k + 8 <= C; k += 8) {
      dge_ld8(e, 0, base + k, 1, x);
      for (int j = 0; j < 8; j++) s = dge_acc(e, s, &ss, dge_exp(e, dge_sub(e, dge_use(e, 0, base + k + j, x[j]), m)));
    }
    for (; k < C; k++) s = dge_acc(e, s, &ss, dge_exp(e, dge_sub(e, dge_rd(e, 0, base + k), m)));
    if (mode == 0) return dge_div(e, dge_exp(e, dge_sub(e, dge_rd(e, 0, base + c), m)), s);
    double d = dge_sub(e, dge_rd(e, 0, base + c), m), sd = e->sh, l = dge_log(e, s);
    return dge_subs(e, d, sd, l, fabs(l));
  }
  if (mode == 2) {
    double s = dge_c(e, 0), ss = 0;
    for (k = 0; k + 8 <= C; k += 8) {
      dge_ld8(e, 0, base + k, 1, x);
      for (int j = 0; j < 8; j++) s = dge_acc(e, s, &ss, dge_use(e, 0, base + k + j, x[j]));
    }
    for (; k < C; k++) s = dge_acc(e, s, &ss, dge_rd(e, 0, base + k));
    double mean = dge_div(e, s, dge_c(e, (double)C));
    double v = dge_c(e, 0), sv = 0;
    for (k = 0; k + 8 <= C; k += 8) {
      dge_ld8(e, 0, base + k, 1, x);
      for (int j = 0; j < 8; j++) {
        double d = dge_sub(e, dge_use(e, 0, base + k + j, x[j]), mean);
        v = dge_acc(e, v, &sv, dge_mul(e, d, d));
      }
    }
    for (; k < C; k++) {
      double d = dge_sub(e, dge_rd(e, 0, base + k), mean);
      v = dge_acc(e, v, &sv, dge_mul(e, d, d));
    }
    double r = dge_rsqrt(e, dge_add(e, dge_div(e, v, dge_c(e, (double)C)), dge_c(e, eps)));
    double y = dge_mul(e, dge_mul(e, dge_sub(e, dge_rd(e, 0, base + c), mean), r), dge_rd(e, 1, c));
    return dge_add(e, y, dge_rd(e, 2, c));
  }
  double ss = dge_c(e, 0), sss = 0;
  for (k = 0; k + 8 <= C; k += 8) {
    dge_ld8(e, 0, base + k, 1, x);
    for (int j = 0; j < 8; j++) {
      double xv = dge_use(e, 0, base + k + j, x[j]);
      ss = dge_acc(e, ss, &sss, dge_mul(e, xv, xv));
    }
  }
  for (; k < C; k++) {
    double xv = dge_rd(e, 0, base + k);
    ss = dge_acc(e, ss, &sss, dge_mul(e, xv, xv));
  }
  double r = dge_rsqrt(e, dge_add(e, dge_div(e, ss, dge_c(e, (double)C)), dge_c(e, eps)));
  return dge_mul(e, dge_mul(e, dge_rd(e, 0, base + c), r), dge_rd(e, 1, c));
}

DG_DEV double dge_reduce_step(dge_st *e, double acc, double *sa, double v, long long mode)
{
  if (mode == 2) return dge_max(e, acc, v);
  if (mode == 3) return dge_min(e, acc, v);
  if (mode >= 4) return dge_acc(e, acc, sa, dge_mul(e, v, v));
  return dge_acc(e, acc, sa, v);
}

DG_DEV double dge_reduce(dge_st *e, long long i, long long N, long long C, long long dim, long long mode)
{
  long long len = dim == 1 ? C : N, at = dim == 1 ? i * C : i, step = dim == 1 ? 1 : C, k;
  double acc = dge_rd(e, 0, at), x[8];
  if (mode >= 4) acc = dge_mul(e, acc, acc);
  double sa = fabs(acc);
  for (k = 1; k + 8 <= len; k += 8) {
    dge_ld8(e, 0, at + k * step, step, x);
    for (int j = 0; j < 8; j++) acc = dge_reduce_step(e, acc, &sa, dge_use(e, 0, at + (k + j) * step, x[j]), mode);
  }
  for (; k < len; k++) acc = dge_reduce_step(e, acc, &sa, dge_rd(e, 0, at + k * step), mode);
  if (mode == 1) return dge_div(e, acc, dge_c(e, (double)len));
  if (mode == 5) return dge_sqrt(e, acc);
  return acc;
}

DG_DEV double dge_map(dge_st *e, long long i, long long mode, double p0)
{
  double x = dge_rd(e, 0, i);
  if (mode == 0) return dge_add(e, x, dge_mul(e, dge_c(e, p0), dge_rd(e, 1, i)));
  if (mode == 1) return dge_add(e, x, dge_rd(e, 1, i));
  if (mode == 2) return dge_mul(e, x, dge_rd(e, 1, i));
  if (mode == 3) return dge_mul(e, dge_c(e, p0), x);
  if (mode == 4) return dge_max(e, x, dge_c(e, 0));
  if (mode == 5) return dge_div(e, dge_c(e, 1), dge_add(e, dge_c(e, 1), dge_exp(e, dge_neg(e, x))));
  if (mode == 6) return dge_div(e, x, dge_add(e, dge_c(e, 1), dge_exp(e, dge_neg(e, x))));
  if (mode == 7) return dge_tanh(e, x);
  if (mode == 8) {
    double h = dge_mul(e, dge_c(e, 0.5), x);
    return dge_mul(e, h, dge_add(e, dge_c(e, 1), dge_erf(e, dge_mul(e, x, dge_c(e, 0.7071067811865476)))));
  }
  if (mode == 9) {
    double h = dge_mul(e, dge_c(e, 0.5), x);
    double cube = dge_mul(e, dge_mul(e, dge_mul(e, dge_c(e, 0.044715), x), x), x);
    double in = dge_mul(e, dge_c(e, 0.7978845608028654), dge_add(e, x, cube));
    return dge_mul(e, h, dge_add(e, dge_c(e, 1), dge_tanh(e, in)));
  }
  double pos = dge_gt(e, x, dge_c(e, 0));
  if (mode == 10) return dge_where(e, pos, x, dge_mul(e, dge_c(e, p0), x));
  return dge_where(e, pos, x, dge_mul(e, dge_c(e, p0), dge_sub(e, dge_exp(e, x), dge_c(e, 1))));
}

DG_DEV double dge_matmul(dge_st *e, long long flat, long long M, long long N, long long K, long long flags,
                         double alpha)
{
  long long z = flat / (M * N), r = flat % (M * N), m = r / N, n = r % N;
  long long ab = z * M * K, bb = z * K * N;
  if (K <= 0) return alpha * 0;
  long long ia = ab + (flags & 1 ? m : m * K), sa = flags & 1 ? M : 1;   /* A[m][k] at ia + k sa */
  long long ib = bb + (flags & 2 ? n * K : n), sb = flags & 2 ? 1 : N;   /* B[k][n] at ib + k sb */
  double acc = dge_c(e, 0), sacc = 0, a[8], b[8];
  long long k;
  for (k = 0; k + 8 <= K; k += 8) {
    dge_ld8(e, 0, ia + k * sa, sa, a);
    dge_ld8(e, 1, ib + k * sb, sb, b);
    for (int j = 0; j < 8; j++) {
      double av = dge_use(e, 0, ia + (k + j) * sa, a[j]);
      double bv = dge_use(e, 1, ib + (k + j) * sb, b[j]);
      acc = dge_acc(e, acc, &sacc, dge_mul(e, av, bv));
    }
  }
  for (; k < K; k++) {
    double av = dge_rd(e, 0, ia + k * sa);
    double bv = dge_rd(e, 1, ib + k * sb);
    acc = dge_acc(e, acc, &sacc, dge_mul(e, av, bv));
  }
  /* gemv's reference has no alpha (bit 2: the 1 of the plan): no operation,
   * as the host's, or the perturbed evaluations would move 1 * acc */
  return flags & 4 ? acc : dge_mul(e, dge_c(e, alpha), acc);
}

/* conv2d (lua/ops/conv2d.lua): acc from 0 over c, r, s in order, a row or
 * column outside the input skipped (gpu5, session 5) */
DG_DEV double dge_conv(dge_st *e, long long flat, const long long *n, const double *p)
{
  long long C = n[0] & 0xffffffffLL, H = n[1] >> 32, W = n[1] & 0xffffffffLL, K = n[2] >> 32;
  long long R = (n[2] >> 16) & 0xffff, S = n[2] & 0xffff, OH = n[3] >> 32, OW = n[3] & 0xffffffffLL;
  long long st = (long long)p[0], pad = (long long)p[1], dil = (long long)p[2];
  long long ow = flat % OW, q = flat / OW, oh = q % OH;
  q /= OH;
  long long k = q % K, b = q / K;
  double acc = dge_c(e, 0), sacc = 0;
  for (long long c = 0; c < C; c++)
    for (long long r = 0; r < R; r++) {
      long long ih = oh * st - pad + r * dil;
      if (ih < 0 || ih >= H) continue;
      for (long long s = 0; s < S; s++) {
        long long iw = ow * st - pad + s * dil;
        if (iw >= 0 && iw < W)
          acc = dge_acc(e, acc, &sacc, dge_mul(e, dge_rd(e, 0, ((b * C + c) * H + ih) * W + iw),
                                               dge_rd(e, 1, ((k * C + c) * R + r) * S + s)));
      }
    }
  return acc;
}

/* The op's float attribute (eps, alpha, a slope) as a perturbed evaluation
 * reads it: scaled by dge_perturb(flat, k, -1, its bits) — a kernel takes it
 * as a float argument, an input like any other (adamw folds 1 - beta2^t
 * from its float beta2 in fp32). The host rule perturbs every float
 * attribute of the problem the same way (fuzz_envelope.c's attr hook). */
DG_DEV double dge_attr(const dge_st *e, double v)
{
  union { double d; unsigned long long u; } c;
  c.d = v;
  return e->perturb ? v * dge_perturb(e->flat, e->k, -1, (long long)c.u) : v;
}

DG_DEV double dge_eval_op(dge_st *e, int kind, const long long *n, const double *p, long long flat)
{
  double p0 = kind == 3 && (n[3] & 4) ? p[0] : dge_attr(e, p[0]);   /* gemv's alpha: no attribute */
  if (kind == 0) return dge_rows(e, flat, n[1], n[2], p0);
  if (kind == 1) return dge_reduce(e, flat, n[0], n[1], n[2], n[3]);
  if (kind == 2) return dge_map(e, flat, n[1], p0);
  if (kind == 4) return dge_conv(e, flat, n, p);
  return dge_matmul(e, flat, n[0], n[1], n[2], n[3], p0);
}

/* The evaluation on a copy of *e (written back after): every function it
 * runs is inlined and none takes the copy's address out, so the compiler
 * keeps the copy's fields in registers — on *e itself, a struct in the
 * kernel's local memory, every operation's count and note was a load and a
 * store there (session 8). */
/* e->pre set: the evaluation computed elsewhere (dge_res), its facts */
DG_DEV double dge_eval_pre(dge_st *e)
{
  const dge_res *q = &e->pre[e->round32 ? 0 : 1 + e->k];
  e->overflowed = q->overflowed;
  e->order_overflow = q->order_overflow;
  e->nan_input = q->nan_input;
  e->nan_cmp = q->nan_cmp;
  if (e->round32)
    for (int s = 0; s < 3; s++) e->maxin[s] = q->maxin[s];
  return q->r;
}

/* An evaluation's state at its start, from e's settings (flat, k, round32,
 * perturb, scale, the inputs): no facts yet, its keys, no operation counted.
 * dge_eval's, and each of the device's matmul windows' (dge_mm_*). */
DG_DEV void dge_fresh(dge_st *l, const dge_st *e)
{
  *l = *e;
  l->pre = 0;
  l->given = 0;
  l->overflowed = 0;
  l->order_overflow = 0;
  l->nan_input = 0;
  l->nan_cmp = 0;
  l->opkey = dge_op_key(l->flat, l->k);
  l->rkey = dge_read_key(l->flat, l->k);
  for (int c = 0; c < 12; c++) l->ocnt[c] = 0;
}

DG_DEVN double dge_eval(dge_st *e, int kind, const long long *n, const double *p, long long flat)
{
  if (e->pre) return dge_eval_pre(e);
  dge_st l;
  dge_fresh(&l, e);   /* (pre is 0 here, given is 0 outside dge_mm_link) */
  double r = dge_eval_op(&l, kind, n, p, flat);
  *e = l;
  return r;
}

/* dge_judge in parts, for perturbed evaluations run side by side (the
 * device: a warp each, gpu_env.c): the round32 pass decides (0, 1), or evaluations
 * k0..k1 do (dge_sample: a non-finite one explains nothing; where fp64 has no
 * number, 1 when one explains got), else 2 and *cond the finite ones' largest
 * distance from want. dge_judge_join: the verdict from the parts in k order,
 * the sequential rule's (fmax is exact; the first part that decides (1) does
 * so alike whichever k it is: the rule is an or over the evaluations). */
DG_DEV int dge_judge_part(dge_st *e, int kind, const long long *n, const double *p, long long flat, double got,
                          double want, int odt, double atol, double rtol, int k0, int k1, double *cond)
{
  *cond = 0;
  e->flat = flat;
  e->round32 = 1;
  e->absorb = 0;
  e->perturb = 0;
  e->k = 0;
  e->maxin[0] = e->maxin[1] = e->maxin[2] = 0;
  double r32 = dge_eval(e, kind, n, p, flat);
  if (odt < 0 || odt > 3) return e->nan_input;
  r32 = (double)(float)r32;
  double r64 = dge_round_dt(odt, want), c64 = dge_center(r64, want, dge_dt_max(odt));
  int r32_inf = !dge_isfinite(r32);
  if (!dge_isfinite(got)) return r32_inf || e->overflowed || e->order_overflow;
  if (r32_inf) {   /* a finite value where fp32's order is not (fuzz_envelope.c's within_envelope says why) */
    int ovf = e->overflowed, oovf = e->order_overflow, ncmp = e->nan_cmp, near = 0;
    if (ovf || oovf) {   /* the absorbing evaluation (a matmul's too: serial here, not from e->pre) */
      const dge_res *pre = e->pre;
      double mx[3] = { e->maxin[0], e->maxin[1], e->maxin[2] };
      e->pre = 0;
      e->absorb = 1;
      double ra = dge_eval(e, kind, n, p, flat);
      e->absorb = 0;
      e->pre = pre;
      for (int s = 0; s < 3; s++) e->maxin[s] = mx[s];
      near = dge_absorbs((double)(float)ra, got, atol, rtol);
    }
    int v = dge_r32_nonfinite(r64, ovf, oovf, ncmp, near);
    if (v < 2) return v;
  } else if (fabs(got - r32) <= atol + rtol * fabs(r32) + (dge_isfinite(c64) ? 2 * fabs(r32 - c64) : 0)) return 1;
  e->round32 = 0;
  e->perturb = 1;
  for (int s = 0; s < 3; s++) e->scale[s] = e->maxin[s];
  for (int k = k0; k <= k1; k++) {
    e->k = k;
    double rp = dge_eval(e, kind, n, p, flat);
    if (dge_sample(rp, c64, want, r32, got, atol, rtol, cond)) return 1;
  }
  return 2;
}

DG_DEV int dge_judge_join(const int *v, const double *cond, int nparts, double got, double want, int odt,
                          double atol, double rtol)
{
  double c = 0;
  for (int i = 0; i < nparts; i++) {
    if (v[i] < 2) return v[i];
    c = fmax(c, cond[i]);
  }
  double c64 = dge_center(dge_round_dt(odt, want), want, dge_dt_max(odt));
  return fabs(got - c64) <= atol + rtol * fabs(c64) + 4 * c;   /* (c64 NaN: 0) */
}

DG_DEV int dge_judge(dge_st *e, int kind, const long long *n, const double *p, long long flat, double got,
                     double want, int odt, double atol, double rtol)
{
  double cond;
  int v = dge_judge_part(e, kind, n, p, flat, got, want, odt, atol, rtol, 0, 2, &cond);
  return v < 2 ? v : dge_judge_join(&v, &cond, 1, got, want, odt, atol, rtol);
}

/* ---- matmul in windows (session 10, gpu13): the device's dg_env_mm ------
 * dge_matmul's loop is one chain only through acc and its shadow: a step's
 * product (its two reads, their perturbation, the mul and its 1 + delta)
 * and its add's 1 + delta and delta2 depend on the step's index alone. The
 * device (gpu_env.c, dg_env_mm: 4 candidates a warp, 8 lanes each) computes
 * them a window of steps at a time, each lane some of the window's steps
 * (dge_mm_term), and one lane an evaluation runs the chain over the window
 * (dge_mm_link: dge_acc itself, with the step's draws given); every lane
 * notes the facts of its own steps, and they are merged after (dge_mm_merge:
 * maxin is a maximum, the flags ors, so which lane took which step
 * does not matter). The same operations on the same values as dge_matmul,
 * so the same bits: env.t checks dge_mm_eval (windows of 32, a lane a step,
 * run one after the other) against dge_eval and dge_mm_judge against
 * dge_judge; the mock CUDA's dg_env_mm runs dge_mm_judge. */
typedef struct {
  long long ia, sa, ib, sb, K;   /* A[m][k] at ia + k sa, B[k][n] at ib + k sb (dge_matmul's) */
  int gemv;
} dge_mmg;

DG_DEV int dge_mm_geom(const long long *n, long long flat, dge_mmg *g)
{
  long long M = n[0], N = n[1], K = n[2], flags = n[3];
  long long z = flat / (M * N), r = flat % (M * N), m = r / N, c = r % N;
  g->ia = z * M * K + (flags & 1 ? m : m * K);
  g->sa = flags & 1 ? M : 1;
  g->ib = z * K * N + (flags & 2 ? c * K : c);
  g->sb = flags & 2 ? 1 : N;
  g->K = K;
  g->gemv = (flags & 4) != 0;
  return K > 0;
}

/* Step j of evaluation l (dge_fresh's): its product from the raw values
 * a, b of its two reads; *f, *d2 its add's draws (perturbed: dge_op2's). */
DG_DEV double dge_mm_term(dge_st *l, const dge_mmg *g, long long j, double a, double b, double *f, double *d2)
{
  double av = dge_use(l, 0, g->ia + j * g->sa, a);
  double bv = dge_use(l, 1, g->ib + j * g->sb, b);
  l->ocnt[3] = (unsigned)j;
  double p = dge_mul(l, av, bv);
  *f = 1;
  *d2 = 0;
  if (!l->round32 && l->perturb) *f = dge_perturb_op2(l->opkey, 1, (unsigned)j, d2);
  return p;
}

/* The chain's step: acc + p as dge_matmul adds it, the draws f, d2 given. */
DG_DEV double dge_mm_link(dge_st *l, double acc, double *sacc, double p, double f, double d2)
{
  l->given = 1;
  l->gf = f;
  l->gd2 = d2;
  double r = dge_acc(l, acc, sacc, p);
  l->given = 0;
  return r;
}

/* After the K steps, as dge_matmul ends: alpha (dge_eval_op's) times acc. */
DG_DEV double dge_mm_end(dge_st *l, const dge_mmg *g, const double *p, double acc)
{
  if (g->gemv) return acc;
  l->ocnt[3] = (unsigned)g->K;
  return dge_mul(l, dge_c(l, dge_attr(l, p[0])), acc);
}

DG_DEV void dge_mm_merge(dge_st *to, const dge_st *from)   /* the order-free facts */
{
  to->overflowed |= from->overflowed;
  to->order_overflow |= from->order_overflow;
  to->nan_input |= from->nan_input;
  to->nan_cmp |= from->nan_cmp;
  for (int s = 0; s < 3; s++)
    if (from->maxin[s] > to->maxin[s]) to->maxin[s] = from->maxin[s];
}

DG_DEV void dge_mm_res(dge_res *q, const dge_st *l, double r)
{
  q->r = r;
  q->overflowed = l->overflowed;
  q->order_overflow = l->order_overflow;
  q->nan_input = l->nan_input;
  q->nan_cmp = l->nan_cmp;
  for (int s = 0; s < 3; s++) q->maxin[s] = l->maxin[s];
}

/* dge_eval of a matmul (kind 3) set up in *e as for dge_eval (round32 or
 * perturb, k, flat, maxin, scale), as dg_env_mm's warp computes it: windows
 * of 32 steps, lane i the terms of step k0 + i, then the chain; 0 when K <= 0
 * (dge_eval then). */
DG_DEV int dge_mm_eval(const dge_st *e, const long long *n, const double *p, long long flat, dge_res *q)
{
  dge_mmg g;
  if (!dge_mm_geom(n, flat, &g)) return 0;
  dge_st ch, lane[32];
  double t[3][32], acc, sacc = 0;
  dge_fresh(&ch, e);
  for (int i = 0; i < 32; i++) dge_fresh(&lane[i], e);
  acc = dge_c(&ch, 0);
  for (long long k0 = 0; k0 < g.K; k0 += 32) {
    int w = g.K - k0 < 32 ? (int)(g.K - k0) : 32;
    for (int i = 0; i < w; i++) {
      long long j = k0 + i;
      t[0][i] = dge_mm_term(&lane[i], &g, j, dge_ld(e->in[0], e->dt[0], g.ia + j * g.sa),
                            dge_ld(e->in[1], e->dt[1], g.ib + j * g.sb), &t[1][i], &t[2][i]);
    }
    for (int i = 0; i < w; i++) acc = dge_mm_link(&ch, acc, &sacc, t[0][i], t[1][i], t[2][i]);
  }
  acc = dge_mm_end(&ch, &g, p, acc);
  for (int i = 0; i < 32; i++) dge_mm_merge(&ch, &lane[i]);
  dge_mm_res(q, &ch, acc);
  return 1;
}

/* dge_judge of a matmul element as dg_env_mm judges it: the round32 pass
 * (dge_mm_eval), dge_judge_part on it alone; when that does not decide, the
 * three perturbed evaluations and dge_judge_part on all four, joined. */
DG_DEV int dge_mm_judge(dge_st *e, const long long *n, const double *p, long long flat, double got, double want,
                        int odt, double atol, double rtol)
{
  dge_res q[4];
  dge_st b = *e;
  b.pre = 0;
  b.absorb = 0;
  b.flat = flat;
  b.round32 = 1;
  b.perturb = 0;
  b.k = 0;
  for (int s = 0; s < 3; s++) b.maxin[s] = 0;
  if (!dge_mm_eval(&b, n, p, flat, &q[0])) return dge_judge(e, 3, n, p, flat, got, want, odt, atol, rtol);
  double cond;
  e->pre = q;
  int v = dge_judge_part(e, 3, n, p, flat, got, want, odt, atol, rtol, 0, -1, &cond);
  if (v == 2) {
    b.round32 = 0;
    b.perturb = 1;
    for (int s = 0; s < 3; s++) b.scale[s] = q[0].maxin[s];
    for (int k = 0; k < 3; k++) {
      b.k = k;
      dge_mm_eval(&b, n, p, flat, &q[1 + k]);
    }
    v = dge_judge_part(e, 3, n, p, flat, got, want, odt, atol, rtol, 0, 2, &cond);
    if (v == 2) v = dge_judge_join(&v, &cond, 1, got, want, odt, atol, rtol);
  }
  e->pre = 0;
  return v;
}
)
