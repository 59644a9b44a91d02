/* dom_sym.h — the symbolic value domain of the checker (DESIGN 1.1, 5).
 *
 * Values are term ids (term.h) of one term_ctx: floats as REAL terms (or
 * IEEE terms when the ctx is made for TERM_MODEL_IEEE), integers, booleans
 * and pointers as bit-vector / bool terms that fold to constants whenever
 * their operands are constants (thread ids, sizes and addresses are, so
 * `concrete` succeeds for them). Constant integer, pointer and conversion
 * arithmetic is delegated to the concrete domain, so folded values are
 * exactly the emulator's (wrapping, shift clamps, x/0).
 *
 * Memory: the domain keeps its own cells per buffer (a term per stored
 * scalar, keyed by byte offset). A buffer bound as an input starts as lazily
 * created variables tensor[i] (term_varinfo: tensor name, flat index, dtype);
 * index-valued inputs (ranges) load as the fixed concrete values the caller
 * gives. Unbound buffers (outputs, scratch, shared, locals) start as
 * "uninitialised" variables, except a zeroed prefix.
 *
 * What the domain cannot express (a bit cast of a symbolic float, an fmod)
 * becomes a fresh free variable and is recorded: dom_sym_unsupported() says
 * what, and the checker must not call a result built on it a proof.
 *
 * Ownership: dom_sym_new's result is freed with d->free(d) (after the simt
 * that uses it). The term ctx is borrowed and must outlive it. Names and
 * `fixed` arrays passed to dom_sym_bind are borrowed: keep them alive while
 * the domain is used. */
#ifndef DG_DOM_SYM_H
#define DG_DOM_SYM_H
#include "dom.h"
#include "term.h"

dom *dom_sym_new(term_ctx *c);

typedef struct {
  const char *tensor;      /* name for variables and messages */
  int tykind;              /* dg_tykind of the element */
  int elem_size;           /* bytes per element */
  bool input;              /* cells start as input variables */
  const double *fixed;     /* index-valued input: concrete values (numel of them); else NULL */
  int64_t numel;
  int64_t zero_bytes;      /* leading bytes that start as zero (scratch) */
} dom_sym_binding;

/* Declares what buffer `buf` (a simt buffer id) holds. */
void dom_sym_bind(dom *d, int buf, const dom_sym_binding *b);

/* The variable an input element stands for (the reference reads the same
 * term). Sort: the tensor dtype's sort in the ctx's model. */
dg_term dom_sym_input_var(term_ctx *c, const char *tensor, int tykind, int64_t index);

/* a / b as the domain builds it (the reference must build it the same way). */
dg_term dom_sym_div(term_ctx *c, dg_term a, dg_term b);

/* The term stored in mem at [off, off+size), or TERM_NONE when nothing
 * stored exactly that scalar. */
dg_term dom_sym_cell(dom *d, dom_mem *mem, int64_t off, int size);

/* Real model: the values the kernel rounded to f16/bf16 (arithmetic in
 * half, or a conversion from a wider float), in execution order, repeats
 * included. The real model computes them exactly; the checker asks whether
 * one can exceed the dtype's range. Owned by the domain. */
typedef struct { dg_term t; int tykind; } dom_sym_narrow;
const dom_sym_narrow *dom_sym_narrow_points(const dom *d, size_t *n);

/* Real model: the arguments of the kernel's f32 exp and exp2 applications
 * (expf, __expf, exp2f), in execution order, repeats included. The real
 * model's exp never overflows; in f32 exp(a) is an infinity past a =
 * log(FLT_MAX) ~ 88.72 (exp2: 128), which the checker asks about. Owned by
 * the domain. */
typedef struct { dg_term arg; bool base2; } dom_sym_exp_arg;
const dom_sym_exp_arg *dom_sym_exp_args(const dom *d, size_t *n);

/* Integer divisions and remainders whose divisor is not a constant (an
 * input's value), and signed ones by a constant -1 of a dividend that is
 * not: in execution order, at most DOM_SYM_MAX_DIVS of them (the first),
 * each pair once. C++ leaves x / 0 and INT_MIN / -1 undefined (a GPU does
 * not trap); the engine reports the concrete cases, the checker asks the
 * solver for these. num and den have the operand type's sort (tykind).
 * Owned by the domain. */
#define DOM_SYM_MAX_DIVS 64
typedef struct { dg_term num, den; int tykind; bool sg; bool rem; } dom_sym_divisor;
const dom_sym_divisor *dom_sym_divisors(const dom *d, size_t *n);

/* First construct the domain could not express ("bit cast of a symbolic
 * float"), or NULL. */
const char *dom_sym_unsupported(const dom *d);

#endif
