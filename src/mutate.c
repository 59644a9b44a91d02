/* mutate.c — mutants of a kernel source (mutate.h): the functions a problem
 * runs are found by name on the tree-sitter CST, then every node of their
 * bodies is offered to each operator's matcher (the table below). */
#include "mutate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_cuda(void);

typedef struct {
  const char *text;
  unsigned mask;
  dg_mutants *out;
} mctx;

typedef bool (*matcher)(mctx *c, TSNode n);

static bool is(TSNode n, const char *type) { return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type); }
static TSNode field(TSNode n, const char *name) { return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name)); }

/* n's text (caller frees). */
static char *text_of(const mctx *c, TSNode n)
{
  return dg_strndup(c->text + ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
}

static bool text_is(const mctx *c, TSNode n, const char *s)
{
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  return strlen(s) == b - a && !memcmp(c->text + a, s, b - a);
}

static bool text_in(const mctx *c, TSNode n, const char *const *set)
{
  for (; *set; set++)
    if (text_is(c, n, *set)) return true;
  return false;
}

static void emit(mctx *c, dg_mutop op, uint32_t start, uint32_t end, TSPoint at, const char *repl, char *desc)
{
  dg_mutant m = { op, start, end, dg_strdup(repl), at.row + 1, at.column + 1, desc };
  dg_vec_push(c->out, m);
}

/* Replaces node n by repl. */
static void emit_node(mctx *c, dg_mutop op, TSNode n, const char *repl, char *desc)
{
  emit(c, op, ts_node_start_byte(n), ts_node_end_byte(n), ts_node_start_point(n), repl, desc);
}

/* The function a call_expression calls, when it is a plain or template name. */
static TSNode callee(TSNode call)
{
  TSNode f = field(call, "function");
  if (is(f, "template_function") || is(f, "qualified_identifier")) f = field(f, "name");
  return is(f, "identifier") ? f : (TSNode){0};
}

/* ---- the operators --------------------------------------------------------- */

static bool m_rel(mctx *c, TSNode n)
{
  static const char *const from[] = { "<", "<=", ">", ">=" }, *const to[] = { "<=", "<", ">=", ">" };
  if (!is(n, "binary_expression")) return false;
  TSNode op = field(n, "operator");
  for (int i = 0; i < 4; i++)
    if (!ts_node_is_null(op) && !strcmp(ts_node_type(op), from[i])) {
      emit_node(c, DG_MUT_REL, op, to[i], dg_printf("`%s` -> `%s`", from[i], to[i]));
      return true;
    }
  return false;
}

/* n is a for statement's update or initialiser (its counter's `+=`, `int o = 16`). */
static bool loop_control(TSNode n)
{
  TSNode f = ts_node_parent(n);
  return is(f, "for_statement") && (ts_node_eq(field(f, "update"), n) || ts_node_eq(field(f, "initializer"), n));
}

static bool m_acc(mctx *c, TSNode n)
{
  if (!is(n, "assignment_expression") || loop_control(n)) return false;
  TSNode op = field(n, "operator");
  if (ts_node_is_null(op) || strcmp(ts_node_type(op), "+=")) return false;
  emit_node(c, DG_MUT_ACC, op, "=", dg_strdup("`+=` -> `=`"));
  return true;
}

static bool m_sync(mctx *c, TSNode n)
{
  static const char *const barriers[] = { "__syncthreads", "__syncwarp", NULL };
  if (!is(n, "expression_statement") || ts_node_named_child_count(n) != 1) return false;
  TSNode call = ts_node_named_child(n, 0), f = is(call, "call_expression") ? callee(call) : (TSNode){0};
  if (ts_node_is_null(f) || !text_in(c, f, barriers)) return false;
  char *name = text_of(c, f);
  emit_node(c, DG_MUT_SYNC, n, ";", dg_printf("`%s();` removed", name));
  free(name);
  return true;
}

static bool m_pad(mctx *c, TSNode n)
{
  static const char *const big[] = { "INFINITY", "CUDART_INF_F", "CUDART_INF", "FLT_MAX", "HUGE_VALF", "HUGE_VAL", NULL };
  if (!is(n, "unary_expression")) return false;
  TSNode op = field(n, "operator"), a = field(n, "argument");
  if (ts_node_is_null(op) || strcmp(ts_node_type(op), "-")) return false;
  bool huge = (is(a, "identifier") && text_in(c, a, big));
  if (is(a, "number_literal")) {
    char *s = text_of(c, a);
    huge = strtod(s, NULL) >= 1e30;
    free(s);
  }
  if (!huge) return false;
  char *was = text_of(c, n);
  emit_node(c, DG_MUT_PAD, n, "0.0f", dg_printf("`%s` -> `0.0f`", was));
  free(was);
  return true;
}

static bool m_cast(mctx *c, TSNode n)
{
  static const char *const wide[] = { "size_t", "long", "long long", "long int", "long long int", "int64_t",
                                      "unsigned long", "unsigned long long", "uint64_t", "ptrdiff_t",
                                      "ssize_t", "long unsigned int", NULL };
  if (!is(n, "cast_expression")) return false;
  TSNode ty = field(n, "type"), v = field(n, "value");
  if (ts_node_is_null(ty) || ts_node_is_null(v) || !text_in(c, ty, wide)) return false;
  char *t = text_of(c, ty), *val = text_of(c, v), *repl = dg_printf("(%s)", val);
  emit_node(c, DG_MUT_CAST, n, repl, dg_printf("cast to `%s` dropped", t));
  free(t), free(val), free(repl);
  return true;
}

static bool m_init(mctx *c, TSNode n)
{
  if (!is(n, "declaration") || loop_control(n)) return false;
  uint32_t k = ts_node_named_child_count(n);
  bool any = false;
  for (uint32_t i = 0; i < k; i++) {
    TSNode d = ts_node_named_child(n, i), v = field(d, "value"), name = field(d, "declarator");
    if (!is(d, "init_declarator") || !is(name, "identifier")) continue;
    if (!is(v, "number_literal") && !(is(v, "unary_expression") && is(field(v, "argument"), "number_literal")))
      continue;
    char *id = text_of(c, name);
    emit_node(c, DG_MUT_INIT, d, id, dg_printf("initialiser of `%s` dropped", id));
    free(id);
    any = true;
  }
  return any;
}

static const char *const sync_calls[] = { "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
                                          "__ballot_sync", "__any_sync", "__all_sync", "__reduce_add_sync",
                                          "__reduce_max_sync", "__reduce_min_sync", NULL };

static bool m_mask(mctx *c, TSNode n)
{
  if (!is(n, "call_expression")) return false;
  TSNode f = callee(n), args = field(n, "arguments");
  if (ts_node_is_null(f) || !text_in(c, f, sync_calls) || ts_node_named_child_count(args) < 1) return false;
  TSNode m = ts_node_named_child(args, 0);
  if (!is(m, "number_literal")) return false;
  char *s = text_of(c, m);
  bool full = strtoull(s, NULL, 0) == 0xffffffffull;
  if (full) emit_node(c, DG_MUT_MASK, m, "0x7fffffffu", dg_printf("mask `%s` -> `0x7fffffffu` (lane 31 left out)", s));
  free(s);
  return full;
}

/* Renames the callee: pairs of names that swap. */
static bool swap_callee(mctx *c, TSNode n, dg_mutop op, const char *const (*pairs)[2])
{
  if (!is(n, "call_expression")) return false;
  TSNode f = callee(n);
  if (ts_node_is_null(f)) return false;
  for (; (*pairs)[0]; pairs++)
    for (int s = 0; s < 2; s++)
      if (text_is(c, f, (*pairs)[s])) {
        emit_node(c, op, f, (*pairs)[!s], dg_printf("`%s` -> `%s`", (*pairs)[s], (*pairs)[!s]));
        return true;
      }
  return false;
}

static bool m_shfl(mctx *c, TSNode n)
{
  static const char *const pairs[][2] = { { "__shfl_xor_sync", "__shfl_down_sync" }, { NULL, NULL } };
  return swap_callee(c, n, DG_MUT_SHFL, pairs);
}

static bool m_minmax(mctx *c, TSNode n)
{
  static const char *const pairs[][2] = { { "fmaxf", "fminf" }, { "fmax", "fmin" }, { "max", "min" },
                                          { "__hmax", "__hmin" }, { NULL, NULL } };
  return swap_callee(c, n, DG_MUT_MINMAX, pairs);
}

/* An atomic read-modify-write whose value is not used (`atomicAdd(&acc[r], s);`) done as a
 * plain one: `acc[r] += s;` (two threads' updates of one element can be lost). */
static bool m_atomic(mctx *c, TSNode n)
{
  static const char *const calls[][2] = { { "atomicAdd", "+=" }, { "atomicSub", "-=" }, { "atomicMax", "max" },
                                          { "atomicMin", "min" }, { NULL, NULL } };
  if (!is(n, "expression_statement") || ts_node_named_child_count(n) != 1) return false;
  TSNode call = ts_node_named_child(n, 0), f = is(call, "call_expression") ? callee(call) : (TSNode){0};
  TSNode args = is(call, "call_expression") ? field(call, "arguments") : (TSNode){0};
  if (ts_node_is_null(f) || ts_node_is_null(args) || ts_node_named_child_count(args) != 2) return false;
  int k = 0;
  while (calls[k][0] && !text_is(c, f, calls[k][0])) k++;
  if (!calls[k][0]) return false;
  TSNode p = ts_node_named_child(args, 0), v = ts_node_named_child(args, 1);
  TSNode pop = is(p, "pointer_expression") ? field(p, "operator") : (TSNode){0};
  char *ps = text_of(c, p), *vs = text_of(c, v), *fs = text_of(c, f);
  char *lv = !ts_node_is_null(pop) && !strcmp(ts_node_type(pop), "&") ? text_of(c, field(p, "argument"))
                                                                      : dg_printf("*(%s)", ps);
  char *repl = calls[k][1][1] == '=' ? dg_printf("%s %s %s", lv, calls[k][1], vs)
                                     : dg_printf("%s = %s(%s, %s)", lv, calls[k][1], lv, vs);
  emit_node(c, DG_MUT_ATOMIC, call, repl, dg_printf("`%s` -> `%s`", fs, repl));
  free(ps), free(vs), free(fs), free(lv), free(repl);
  return true;
}

static const struct {
  const char *name, *help;
  matcher fn;
} ops[DG_MUT__COUNT] = {
  [DG_MUT_REL] = { "rel", "a comparison one off: `<` <-> `<=`, `>` <-> `>=` (tail masks, bounds)", m_rel },
  [DG_MUT_ACC] = { "acc", "`+=` -> `=` (a lost accumulation; not a for loop's step)", m_acc },
  [DG_MUT_SYNC] = { "sync", "a `__syncthreads();` or `__syncwarp();` removed (a race)", m_sync },
  [DG_MUT_PAD] = { "pad", "`-INFINITY`, `-FLT_MAX`, ... -> `0.0f` (the identity of a max)", m_pad },
  [DG_MUT_CAST] = { "cast", "a cast to a 64-bit integer dropped (int32 index overflow)", m_cast },
  [DG_MUT_INIT] = { "init", "`T v = <number>;` -> `T v;` (an uninitialised accumulator; not a loop counter)", m_init },
  [DG_MUT_MASK] = { "mask", "a full shuffle/vote mask loses lane 31", m_mask },
  [DG_MUT_SHFL] = { "shfl", "`__shfl_xor_sync` <-> `__shfl_down_sync` (a reduction's pattern)", m_shfl },
  [DG_MUT_MINMAX] = { "minmax", "`fmaxf` <-> `fminf`, `max` <-> `min`", m_minmax },
  [DG_MUT_ATOMIC] = { "atomic", "an atomic dropped: `atomicAdd(&a[i], v);` -> `a[i] += v` (Sub, Max, Min alike)",
                      m_atomic },
};

const char *dg_mutop_name(dg_mutop op) { return op < DG_MUT__COUNT ? ops[op].name : "?"; }
const char *dg_mutop_help(dg_mutop op) { return op < DG_MUT__COUNT ? ops[op].help : ""; }

int dg_mutop_lookup(const char *name)
{
  for (int i = 0; i < DG_MUT__COUNT; i++)
    if (!strcmp(ops[i].name, name)) return i;
  return -1;
}

/* ---- the functions run ------------------------------------------------------ */

typedef struct {
  TSNode fn;
  char *name;
  bool used;
} func;
typedef DG_VEC(func) funcs;

/* The identifier naming a function_definition, through declarator wrappers
 * and qualified names (hl.c does the same for the kernel list). */
static TSNode function_name(TSNode fn)
{
  TSNode d = field(fn, "declarator");
  while (!ts_node_is_null(d)) {
    if (is(d, "identifier") || is(d, "field_identifier")) return d;
    TSNode next = field(d, "declarator");
    if (ts_node_is_null(next)) next = field(d, "name");
    d = next;
  }
  return d;
}

/* Every function_definition outside other functions' bodies. */
static void find_funcs(const mctx *c, TSNode n, funcs *fs)
{
  if (is(n, "function_definition")) {
    TSNode name = function_name(n);
    if (!ts_node_is_null(name)) {
      func f = { n, text_of(c, name), false };
      dg_vec_push(fs, f);
    }
    return;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) find_funcs(c, ts_node_named_child(n, i), fs);
}

/* Marks the functions named in n's calls; true if one was new. */
static bool mark_calls(const mctx *c, TSNode n, funcs *fs)
{
  bool more = false;
  if (is(n, "call_expression")) {
    TSNode f = callee(n);
    for (size_t i = 0; i < fs->n && !ts_node_is_null(f); i++)
      if (!fs->v[i].used && text_is(c, f, fs->v[i].name)) fs->v[i].used = more = true;
  }
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) more |= mark_calls(c, ts_node_named_child(n, i), fs);
  return more;
}

static void visit(mctx *c, TSNode n)
{
  for (int op = 0; op < DG_MUT__COUNT; op++)
    if (c->mask >> op & 1) ops[op].fn(c, n);
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) visit(c, ts_node_named_child(n, i));
}

static int by_start(const void *a, const void *b)
{
  const dg_mutant *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1 : (int)x->op - (int)y->op;
}

void dg_mutate(const char *text, size_t len, const char *const *roots, size_t nroots, unsigned opmask,
               dg_mutants *out)
{
  mctx c = { text, opmask, out };
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_cuda());
  TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
  funcs fs = {0};
  if (tree) find_funcs(&c, ts_tree_root_node(tree), &fs);
  for (size_t r = 0; r < nroots; r++) {
    const char *last = strrchr(roots[r], ':');
    last = last ? last + 1 : roots[r];
    for (size_t i = 0; i < fs.n; i++) fs.v[i].used |= !strcmp(fs.v[i].name, last);
  }
  bool more = true;
  while (more) {
    more = false;
    for (size_t i = 0; i < fs.n; i++)
      if (fs.v[i].used) more |= mark_calls(&c, field(fs.v[i].fn, "body"), &fs);
  }
  size_t first = out->n;
  for (size_t i = 0; i < fs.n; i++) {
    if (fs.v[i].used) visit(&c, field(fs.v[i].fn, "body"));
    free(fs.v[i].name);
  }
  if (out->n > first) qsort(out->v + first, out->n - first, sizeof *out->v, by_start);
  dg_vec_free(&fs);
  if (tree) ts_tree_delete(tree);
  ts_parser_delete(parser);
}

char *dg_mutant_apply(const char *text, size_t len, const dg_mutant *m)
{
  dg_buf b = {0};
  dg_buf_put(&b, text, m->start);
  dg_buf_puts(&b, m->repl);
  dg_buf_put(&b, text + m->end, len - m->end);
  return dg_buf_take(&b);
}

void dg_mutants_free(dg_mutants *v)
{
  for (size_t i = 0; i < v->n; i++) free(v->v[i].repl), free(v->v[i].desc);
  dg_vec_free(v);
}
