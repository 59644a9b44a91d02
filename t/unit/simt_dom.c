/* simt_dom.c — the value domain is a parameter: a taint-tracking test domain
 * (values are indices into a table of {concrete bits, tainted}; loads from
 * the input buffer are tainted; a branch on a tainted value answers
 * DOM_BOTH, an address from one cannot be made concrete) runs the same
 * kernels as the concrete domain. Both-way branches merged under guards must
 * give exactly the concrete results; loops and addresses that depend on
 * tainted data stop with a data-dependent event at their line. */
#include "simt.h"
#include "simt_build.h"
#include "../tap.h"

typedef struct { uint64_t v; uint8_t t; } ent;
typedef struct {
  dom d;
  DG_VEC(ent) tab;
  int taint_buf;           /* loads from this buffer are tainted */
  int nboth;               /* DOM_BOTH answers given */
} tdom;

static dom *C;
#define TAB(d) (((tdom *)(d))->tab)

static dom_val mk(dom *d, uint64_t v, uint8_t t)
{
  dg_vec_push(&TAB(d), ((ent){ v, t }));
  return (dom_val)(TAB(d).n - 1);
}

/* unpack n slots to concrete values and taints */
static uint64_t *un(dom *d, int n, const uint8_t *m, const dom_val *a, uint8_t *t)
{
  uint64_t *r = dg_calloc((size_t)n + 1, 8);
  for (int i = 0; i < n; i++)
    if (m[i]) r[i] = TAB(d).v[a[i]].v, t[i] |= TAB(d).v[a[i]].t;
  return r;
}

static void pack(dom *d, int n, const uint8_t *m, dom_val *dst, const uint64_t *v, const uint8_t *t)
{
  for (int i = 0; i < n; i++) if (m[i]) dst[i] = mk(d, v[i], t[i]);
}

static void t_const_int(dom *d, const dg_type *ty, int n, const uint8_t *m, dom_val *dst, const int64_t *src)
{
  uint64_t *r = dg_calloc((size_t)n + 1, 8);
  uint8_t *t = dg_calloc((size_t)n + 1, 1);
  C->const_int(C, ty, n, m, r, src);
  pack(d, n, m, dst, r, t);
  free(r), free(t);
}

static void t_const_float(dom *d, const dg_type *ty, int n, const uint8_t *m, dom_val *dst, double f)
{
  uint64_t *r = dg_calloc((size_t)n + 1, 8);
  uint8_t *t = dg_calloc((size_t)n + 1, 1);
  C->const_float(C, ty, n, m, r, f);
  pack(d, n, m, dst, r, t);
  free(r), free(t);
}

static void t_unop(dom *d, dg_unop op, const dg_type *ty, int n, const uint8_t *m, dom_val *dst, const dom_val *a)
{
  uint8_t *t = dg_calloc((size_t)n + 1, 1);
  uint64_t *av = un(d, n, m, a, t), *r = dg_calloc((size_t)n + 1, 8);
  C->unop(C, op, ty, n, m, r, av);
  pack(d, n, m, dst, r, t);
  free(av), free(r), free(t);
}

static void t_binop(dom *d, dg_binop op, const dg_type *ty, int n, const uint8_t *m, dom_val *dst,
                    const dom_val *a, const dom_val *b)
{
  uint8_t *t = dg_calloc((size_t)n + 1, 1);
  uint64_t *av = un(d, n, m, a, t), *bv = un(d, n, m, b, t), *r = dg_calloc((size_t)n + 1, 8);
  C->binop(C, op, ty, n, m, r, av, bv);
  pack(d, n, m, dst, r, t);
  free(av), free(bv), free(r), free(t);
}

static void t_cast(dom *d, dg_castkind k, const dg_type *to, const dg_type *from, int n, const uint8_t *m,
                   dom_val *dst, const dom_val *a)
{
  uint8_t *t = dg_calloc((size_t)n + 1, 1);
  uint64_t *av = un(d, n, m, a, t), *r = dg_calloc((size_t)n + 1, 8);
  C->cast(C, k, to, from, n, m, r, av);
  pack(d, n, m, dst, r, t);
  free(av), free(r), free(t);
}

static bool t_math(dom *d, dg_iclass c, const dg_type *rt, const dg_type *ty, int nargs, int n,
                   const uint8_t *m, dom_val *dst, const dom_val *const *args)
{
  uint8_t *t = dg_calloc((size_t)n + 1, 1);
  uint64_t *av[3] = { 0 }, *r = dg_calloc((size_t)n + 1, 8);
  for (int i = 0; i < nargs; i++) av[i] = un(d, n, m, args[i], t);
  const dom_val *cargs[3] = { av[0], av[1], av[2] };
  bool ok_ = C->math(C, c, rt, ty, nargs, n, m, r, cargs);
  pack(d, n, m, dst, r, t);
  for (int i = 0; i < nargs; i++) free(av[i]);
  free(r), free(t);
  return ok_;
}

static void t_select(dom *d, const dg_type *ty, int n, const uint8_t *m, dom_val *dst,
                     const dom_val *c, const dom_val *a, const dom_val *b)
{
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    ent ce = TAB(d).v[c[i]], ae = TAB(d).v[a[i]], be = TAB(d).v[b[i]];
    ent r = ce.v ? ae : be;
    dst[i] = mk(d, r.v, (uint8_t)(r.t | ce.t));
  }
}

static void t_branch(dom *d, const dg_type *ty, int n, const uint8_t *m, const dom_val *c, uint8_t *out)
{
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    ent e = TAB(d).v[c[i]];
    if (e.t) { out[i] = DOM_BOTH; ((tdom *)d)->nboth++; continue; }
    uint64_t v = e.v;
    C->branch(C, ty, 1, m + i, &v, out + i);
  }
}

static int t_concrete(dom *d, const dg_type *ty, int n, const uint8_t *m, const dom_val *src, int64_t *out)
{
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    ent e = TAB(d).v[src[i]];
    if (e.t) return i;
    C->concrete(C, ty, 1, m + i, &e.v, out + i);
  }
  return -1;
}

static uint8_t *cells(dom *d, dom_mem *mem)
{
  if (!mem->cells) {
    mem->cells = dg_malloc((size_t)mem->size + 1);
    memset(mem->cells, mem->id == ((tdom *)d)->taint_buf, (size_t)mem->size + 1);
  }
  return mem->cells;
}

static void t_load(dom *d, const dg_type *ty, int n, const uint8_t *m, dom_val *dst, dom_mem *const *mem, const int64_t *off)
{
  uint64_t *r = dg_calloc((size_t)n + 1, 8);
  C->load(C, ty, n, m, r, mem, off);
  for (int i = 0; i < n; i++) {
    if (!m[i]) continue;
    uint8_t t = 0, *c = cells(d, mem[i]);
    for (int64_t j = 0; j < dom_tysize(ty); j++) t |= c[off[i] + j];
    dst[i] = mk(d, r[i], t);
  }
  free(r);
}

static void t_store(dom *d, const dg_type *ty, int n, const uint8_t *m, const dom_val *src, dom_mem *const *mem, const int64_t *off)
{
  uint8_t *t = dg_calloc((size_t)n + 1, 1);
  uint64_t *v = un(d, n, m, src, t);
  C->store(C, ty, n, m, v, mem, off);
  for (int i = 0; i < n; i++)
    if (m[i]) memset(cells(d, mem[i]) + off[i], t[i], (size_t)dom_tysize(ty));
  free(v), free(t);
}

static void t_mem_free(dom *d, dom_mem *mem) { free(mem->cells); mem->cells = NULL; }

static tdom *tdom_new(void)
{
  tdom *t = dg_calloc(1, sizeof *t);
  t->d = (dom){ .name = "taint", .mem_bytes = false, .const_int = t_const_int, .const_float = t_const_float,
                .unop = t_unop, .binop = t_binop, .cast = t_cast, .math = t_math, .select = t_select,
                .branch = t_branch, .concrete = t_concrete, .load = t_load, .store = t_store,
                .mem_free = t_mem_free };
  mk(&t->d, 0, 0);         /* slot 0: the zero the engine fills registers with */
  return t;
}

/* float v = x[i]; float r;
 * if (v > 0) { r = v * 2; if (v > 1) r = r + 10; } else r = -v;
 * y[i] = (v > 0.5f && v < 1.5f) ? r : r + 100;
 * if (v < -1) y[i] = 0;                                 (a guarded store) */
static dg_func *k_branchy(void)
{
  dg_func *k = FN("branchy", T_VOID, true);
  dg_var *y = PARAM(k, "y", PTR(T_F32)), *x = PARAM(k, "x", PTR(T_F32));
  dg_var *i = LOCAL(k, "i", T_INT), *v = LOCAL(k, "v", T_F32), *r = LOCAL(k, "r", T_F32);
  k->body = BLK(DECL(i, TID(0)), DECL(v, IDX(V(x), V(i))), DECL(r, NULL),
    IF(BIN(DG_BIN_GT, V(v), F(0)),
       BLK(EXPR(ASG(V(r), MUL(V(v), F(2)))), IF(BIN(DG_BIN_GT, V(v), F(1)), EXPR(ASG(V(r), ADD(V(r), F(10)))), NULL)),
       EXPR(ASG(V(r), UN(DG_UN_NEG, V(v))))),
    EXPR(ASG(IDX(V(y), V(i)), COND(LAND(BIN(DG_BIN_GT, V(v), F(0.5)), LT(V(v), F(1.5))), V(r), ADD(V(r), F(100))))),
    IF(LT(V(v), F(-1)), EXPR(ASG(IDX(V(y), V(i)), F(0))), NULL));
  return k;
}

static void run(dom *d, dg_func *k, int xin, float *xs, int nx, float *out, simt_status *st, simt **keep)
{
  simt *m = simt_new(d);
  int yb = simt_buf_new(m, "y", T_F32, 4 * nx, 0), xb = simt_buf_new(m, "x", T_F32, 4 * nx, SIMT_BUF_INIT);
  if (d != C) ((tdom *)d)->taint_buf = xb;
  (void)xin;
  simt_buf_write(m, xb, 0, xs, 4 * nx);
  simt_launch L = { .grid = { 1, 1, 1 }, .block = { (uint32_t)nx, 1, 1 } };
  simt_arg a[] = { { .kind = SIMT_ARG_BUF, .buf = yb }, { .kind = SIMT_ARG_BUF, .buf = xb } };
  *st = simt_run(m, k, &L, a, 2);
  simt_buf_read(m, yb, 0, out, 4 * nx);
  if (keep) *keep = m;
  else simt_free(m);
}

int main(void)
{
  b_init();
  C = dom_concrete();
  enum { NX = 40 };
  float xs[NX], yc[NX], yt[NX];
  for (int i = 0; i < NX; i++) xs[i] = (float)(i - 20) / 8;
  simt_status sc, stt;
  dg_func *k = k_branchy();
  run(C, k, 0, xs, NX, yc, &sc, NULL);
  tdom *td = tdom_new();
  simt *m;
  run(&td->d, k, 0, xs, NX, yt, &stt, &m);
  is_int(sc, SIMT_OK, "concrete run");
  is_int(stt, SIMT_OK, "taint domain runs both ways of every data-dependent branch");
  ok(td->nboth >= 5 * NX, "every lane went both ways at each data-dependent branch (%d)", td->nboth);
  ok(!memcmp(yc, yt, sizeof yc), "merged under guards: the same results as the concrete run");
  bool spot = yc[0] == 0 && yc[24] == 101 && yc[30] == 12.5f;
  ok(spot, "spot values (%g %g %g)", yc[0], yc[24], yc[30]);
  size_t ne;
  simt_events(m, &ne);
  is_int(ne, 0, "no events in the taint run");
  simt_free(m);

  /* a loop bound read from the input: for (j = 0; j < x[i]; j++) — line 9 */
  L = 8;
  dg_func *k2 = FN("loopy", T_VOID, true);
  dg_var *y = PARAM(k2, "y", PTR(T_F32)), *x = PARAM(k2, "x", PTR(T_F32)), *j = LOCAL(k2, "j", T_INT);
  dg_stmt *d = DECL(j, I(0));
  L = 9;
  k2->body = BLK(d, WHILE(LT(CAST(T_F32, V(j)), IDX(V(x), TID(0))), EXPR(INC(V(j), false))),
                 EXPR(ASG(IDX(V(y), TID(0)), CAST(T_F32, V(j)))));
  run(&td->d, k2, 0, xs, NX, yt, &stt, &m);
  is_int(stt, SIMT_STOPPED, "loop on input data stops");
  const simt_event *e = simt_events(m, &ne);
  ok(ne == 1 && e[0].kind == SIMT_EV_DATA_DEP && e[0].span.line == 9, "data-dependent loop reported at line 9");
  simt_free(m);

  /* an address from input data: y[(int)x[t] & 7] — line 12 */
  L = 12;
  dg_func *k3 = FN("gather", T_VOID, true);
  dg_var *y3 = PARAM(k3, "y", PTR(T_F32)), *x3 = PARAM(k3, "x", PTR(T_F32));
  k3->body = BLK(EXPR(ASG(IDX(V(y3), BIN(DG_BIN_AND, CAST(T_INT, IDX(V(x3), TID(0))), I(7))), F(1))));
  run(&td->d, k3, 0, xs, NX, yt, &stt, &m);
  e = simt_events(m, &ne);
  ok(stt == SIMT_STOPPED && ne == 1 && e[0].kind == SIMT_EV_DATA_DEP && e[0].span.line == 12,
     "data-dependent address reported at line 12");
  simt_free(m);

  dg_vec_free(&td->tab);
  free(td);
  dg_arena_free(&B);
  return tap_done();
}
