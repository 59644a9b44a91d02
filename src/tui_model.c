/* tui_model.c — the data behind the screen: tensors with per-cell verdicts and
 * fuzz heat, source marks, diagnostics, result text. Curses-free. */
#include "tui_model.h"
#include <stdlib.h>
#include <string.h>

/* Dense per-cell arrays are allocated on first use; beyond this many elements
 * the picker shows states only for cells someone set (none: all unchecked). */
#define DENSE_LIMIT ((int64_t)1 << 26)

void tui_model_init(tui_model *m) { memset(m, 0, sizeof *m); }

void tui_model_free(tui_model *m)
{
  for (size_t i = 0; i < m->tensors.n; i++) {
    free(m->tensors.v[i].name);
    free(m->tensors.v[i].state);
    free(m->tensors.v[i].heat);
  }
  dg_vec_free(&m->tensors);
  tui_model_clear_marks(m);
  for (size_t i = 0; i < m->diags.n; i++) free(m->diags.v[i].msg);
  dg_vec_free(&m->diags);
  free(m->result);
  free(m->missing);
  memset(m, 0, sizeof *m);
}

int tui_model_add_tensor(tui_model *m, const char *name, int ndim, const int64_t *shape)
{
  if (ndim < 1 || ndim > TUI_MAX_DIMS) return -1;
  tui_tensor t = { .ndim = ndim, .count = 1 };
  for (int d = 0; d < ndim; d++) {
    if (shape[d] <= 0 || t.count > INT64_MAX / shape[d]) return -1;
    t.shape[d] = shape[d];
    t.count *= shape[d];
  }
  t.name = dg_strdup(name);
  dg_vec_push(&m->tensors, t);
  return (int)m->tensors.n - 1;
}

int64_t tui_tensor_offset(const tui_tensor *t, const int64_t *idx)
{
  int64_t off = 0;
  for (int d = 0; d < t->ndim; d++) {
    if (idx[d] < 0 || idx[d] >= t->shape[d]) return -1;
    off = off * t->shape[d] + idx[d];
  }
  return off;
}

void tui_tensor_set_state(tui_tensor *t, const int64_t *idx, tui_cell_state s)
{
  int64_t off = tui_tensor_offset(t, idx);
  if (off < 0 || t->count > DENSE_LIMIT || (unsigned)s >= TUI_CELL__COUNT) return;
  if (!t->state) t->state = dg_calloc((size_t)t->count, 1);
  t->state[off] = (uint8_t)s;
}

tui_cell_state tui_tensor_state(const tui_tensor *t, const int64_t *idx)
{
  int64_t off = tui_tensor_offset(t, idx);
  return off < 0 || !t->state ? TUI_CELL_UNCHECKED : (tui_cell_state)t->state[off];
}

void tui_tensor_set_heat(tui_tensor *t, const int64_t *idx, double heat)
{
  int64_t off = tui_tensor_offset(t, idx);
  if (off < 0 || t->count > DENSE_LIMIT) return;
  if (!t->heat) {
    t->heat = dg_malloc((size_t)t->count * sizeof *t->heat);
    for (int64_t i = 0; i < t->count; i++) t->heat[i] = -1;
  }
  t->heat[off] = heat < 0 ? -1.0f : heat > 1 ? 1.0f : (float)heat;
}

double tui_tensor_heat(const tui_tensor *t, const int64_t *idx)
{
  int64_t off = tui_tensor_offset(t, idx);
  return off < 0 || !t->heat ? -1 : t->heat[off];
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

void tui_model_mark_fed(tui_model *m, const uint32_t *lines, size_t n)
{
  m->fed.n = 0;
  for (size_t i = 0; i < n; i++) dg_vec_push(&m->fed, lines[i]);
  if (m->fed.n) qsort(m->fed.v, m->fed.n, sizeof *m->fed.v, cmp_u32);
}

bool tui_model_is_fed(const tui_model *m, uint32_t line)
{
  return m->fed.n && bsearch(&line, m->fed.v, m->fed.n, sizeof *m->fed.v, cmp_u32);
}

void tui_model_mark_fault(tui_model *m, uint32_t line, const char *what)
{
  tui_fault_mark f = { line, dg_strdup(what ? what : "") };
  dg_vec_push(&m->faults, f);
}

const tui_fault_mark *tui_model_fault_at(const tui_model *m, uint32_t line)
{
  for (size_t i = 0; i < m->faults.n; i++)
    if (m->faults.v[i].line == line) return &m->faults.v[i];
  return NULL;
}

void tui_model_clear_marks(tui_model *m)
{
  dg_vec_free(&m->fed);
  for (size_t i = 0; i < m->faults.n; i++) free(m->faults.v[i].what);
  dg_vec_free(&m->faults);
}

void tui_model_add_diag(tui_model *m, dg_severity sev, uint32_t line, uint32_t col, const char *msg)
{
  tui_diag_mark d = { sev, line, col, dg_strdup(msg) };
  dg_vec_push(&m->diags, d);
}

const tui_diag_mark *tui_model_diag_at(const tui_model *m, uint32_t line)
{
  const tui_diag_mark *best = NULL;
  for (size_t i = 0; i < m->diags.n; i++)
    if (m->diags.v[i].line == line && (!best || m->diags.v[i].sev < best->sev)) best = &m->diags.v[i];
  return best;
}

void tui_model_set_result(tui_model *m, const char *text)
{
  free(m->result);
  m->result = text ? dg_strdup(text) : NULL;
}

void tui_model_set_missing(tui_model *m, const char *text)
{
  free(m->missing);
  m->missing = text ? dg_strdup(text) : NULL;
}
