/* check_inst.c — the instances past the spec's sizes that `check --auto`
 * goes on to when the spec's elements are all equivalent (check_inst.h):
 * boundary ones, then huge ones, with the tail elements of each. The
 * command line and the workbench's A both walk them through here, so they
 * check the same instances and print the same replay line. */
#include "check_inst.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool same_loc(const check_iloc *a, const check_iloc *b)
{
  return a->inst == b->inst && a->at.tensor == b->at.tensor && a->at.rank == b->at.rank &&
         !memcmp(a->at.idx, b->at.idx, sizeof a->at.idx);
}

size_t check_insts_next(dg_problem *p, const emu_kernels *k, check_insts *in, check_iloc **locs)
{
  size_t ns = p->sizes.n;
  *locs = NULL;
  if (!in->spec) {
    in->spec = dg_malloc(sizeof *in->spec * (ns + 1));
    dg_problem_default_sizes(p, in->spec);
    in->sizes = dg_malloc(sizeof *in->sizes * (ns + 1) * CHECK_INST_MAX);
    in->ns = ns;
  }
  check_insts_use(p, in, 0);        /* each stage is chosen from the spec's sizes */
  DG_VEC(check_iloc) out = {0};
  while (in->stage < 2 && !out.n) {
    bool huge = in->stage++ == 1;
    int first = in->n;
    in->n += huge ? check_huge_sizes(p, k, in->sizes + (size_t)in->n * ns, CHECK_INST_HUGE, in->deadline)
                  : check_boundary_sizes(p, in->sizes + (size_t)in->n * ns, CHECK_INST_BOUNDARY);
    if (huge && in->deadline > 0 && dg_now() > in->deadline) in->cut = true;
    for (int j = first; j < in->n; j++) {
      in->huge[j] = huge;
      check_loc *cl;
      size_t nl = check_tail_locs(p, in->sizes + (size_t)j * ns, &cl);
      for (size_t i = 0; i < nl; i++) {
        check_iloc l = { cl[i], j + 1 };
        bool seen = false;
        for (size_t m = 0; m < out.n && !seen; m++) seen = same_loc(&out.v[m], &l);
        if (!seen) dg_vec_push(&out, l);
      }
      free(cl);
    }
  }
  *locs = out.v;
  return out.n;
}

const int64_t *check_insts_sizes(const check_insts *in, int inst)
{
  if (inst <= 0 || inst > in->n) return in->spec;
  return in->sizes + (size_t)(inst - 1) * in->ns;
}

void check_insts_use(dg_problem *p, const check_insts *in, int inst)
{
  if (!in->spec) return;             /* nothing moved yet: p has the spec's sizes */
  const int64_t *sz = check_insts_sizes(in, inst);
  for (size_t i = 0; i < p->sizes.n; i++) p->sizes.v[i].value = sz[i];
}

void check_insts_describe(dg_buf *b, const dg_problem *p, const check_insts *in, int inst)
{
  if (inst <= 0 || inst > in->n) return;
  if (in->huge[inst - 1]) {
    dg_buf_puts(b, "a huge instance (an input past 2^31 elements)");
    return;
  }
  const int64_t *sz = check_insts_sizes(in, inst);
  dg_buf_puts(b, "a boundary instance (");
  for (size_t i = 0, said = 0; i < p->sizes.n; i++)
    if (sz[i] != in->spec[i])
      dg_buf_printf(b, "%s%s=%" PRId64 " for %" PRId64, said++ ? ", " : "", p->sizes.v[i].name, sz[i], in->spec[i]);
  dg_buf_putc(b, ')');
}

void check_insts_format_sizes(dg_buf *b, const dg_problem *p, const check_insts *in, int inst)
{
  const int64_t *sz = check_insts_sizes(in, inst);
  for (size_t i = 0; i < p->sizes.n; i++)
    dg_buf_printf(b, "%s%s=%" PRId64, i ? ", " : "", p->sizes.v[i].name, sz ? sz[i] : p->sizes.v[i].value);
}

static int first_output(const dg_problem *p)
{
  for (size_t t = 0; t < p->tensors.n; t++)
    if (p->tensors.v[t].role == DG_TENSOR_OUTPUT) return (int)t;
  return -1;
}

void check_insts_command(dg_buf *b, const dg_problem *p, const char *problem, const check_insts *in,
                         const check_iloc *l)
{
  const int64_t *sz = check_insts_sizes(in, l->inst);
  dg_buf_printf(b, "dirigo check %s", problem);
  for (size_t i = 0; i < p->sizes.n; i++)
    dg_buf_printf(b, " --size %s=%" PRId64, p->sizes.v[i].name, sz ? sz[i] : p->sizes.v[i].value);
  dg_buf_puts(b, " --at ");
  if (l->at.tensor != first_output(p) && l->at.tensor >= 0 && (size_t)l->at.tensor < p->tensors.n)
    dg_buf_printf(b, "%s:", p->tensors.v[l->at.tensor].name);
  for (int i = 0; i < l->at.rank; i++) dg_buf_printf(b, "%s%" PRId64, i ? "," : "", l->at.idx[i]);
}

void check_insts_free(check_insts *in)
{
  free(in->spec);
  free(in->sizes);
  memset(in, 0, sizeof *in);
}
