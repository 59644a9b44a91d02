/* tui_model.h — what the workbench shows, fed by whoever runs checks and
 * fuzz campaigns: per-cell verdicts and fuzz heat of each output tensor,
 * source marks (lines that fed the selected element, race / out-of-bounds
 * lines), diagnostics and the result text. No curses here: a check or fuzz
 * driver may fill a model without a screen, and the views only read it.
 *
 * Ownership: the model owns everything it holds; strings passed in are copied. */
#ifndef DG_TUI_MODEL_H
#define DG_TUI_MODEL_H
#include "util.h"
#include "diag.h"

#define TUI_MAX_DIMS 8

/* The state of one output element (DESIGN 3.3 verdicts, folded for colour). */
typedef enum {
  TUI_CELL_UNCHECKED, TUI_CELL_EQUIVALENT, TUI_CELL_BUG, TUI_CELL_UNKNOWN,
  TUI_CELL_FAULT,        /* race / out-of-bounds / uninitialised-read / barrier-divergence */
  TUI_CELL__COUNT
} tui_cell_state;

typedef struct {
  char *name;
  int ndim;
  int64_t shape[TUI_MAX_DIMS];
  int64_t count;         /* product of the shape */
  uint8_t *state;        /* tui_cell_state per element (row-major), NULL = all unchecked */
  float *heat;           /* fuzz error heat in [0,1] per element, NULL = none; < 0: no data */
} tui_tensor;

typedef struct {
  uint32_t line;
  char *what;            /* "race with line 14 (thread 3)", owned */
} tui_fault_mark;

typedef struct {
  dg_severity sev;
  uint32_t line, col;
  char *msg;             /* owned */
} tui_diag_mark;

typedef struct {
  DG_VEC(tui_tensor) tensors;
  DG_VEC(uint32_t) fed;          /* lines that fed the selected element (sorted) */
  DG_VEC(tui_fault_mark) faults;
  DG_VEC(tui_diag_mark) diags;
  char *result;                  /* result pane text (lines); NULL = nothing yet */
  char *missing;                 /* why there are no tensors (no spec, ...); NULL when fine */
} tui_model;

void tui_model_init(tui_model *m);
void tui_model_free(tui_model *m);

/* Adds an output tensor; shape of ndim (1..TUI_MAX_DIMS) positive sizes.
 * Returns its index, or -1 when the shape is invalid. */
int tui_model_add_tensor(tui_model *m, const char *name, int ndim, const int64_t *shape);
/* Flat row-major offset of idx in t, or -1 when out of range. */
int64_t tui_tensor_offset(const tui_tensor *t, const int64_t *idx);
void tui_tensor_set_state(tui_tensor *t, const int64_t *idx, tui_cell_state s);
tui_cell_state tui_tensor_state(const tui_tensor *t, const int64_t *idx);
/* Fuzz error heat of one element, 0 (no errors) .. 1 (worst); < 0 clears it. */
void tui_tensor_set_heat(tui_tensor *t, const int64_t *idx, double heat);
double tui_tensor_heat(const tui_tensor *t, const int64_t *idx);   /* < 0: none */

/* Source marks. mark_fed replaces the set; lines are 1-based. */
void tui_model_mark_fed(tui_model *m, const uint32_t *lines, size_t n);
bool tui_model_is_fed(const tui_model *m, uint32_t line);
void tui_model_mark_fault(tui_model *m, uint32_t line, const char *what);
const tui_fault_mark *tui_model_fault_at(const tui_model *m, uint32_t line);
void tui_model_clear_marks(tui_model *m);
void tui_model_add_diag(tui_model *m, dg_severity sev, uint32_t line, uint32_t col, const char *msg);
const tui_diag_mark *tui_model_diag_at(const tui_model *m, uint32_t line);

/* The result pane's text (verdict, witness, timings, fuzz summary); copied. */
void tui_model_set_result(tui_model *m, const char *text);
void tui_model_set_missing(tui_model *m, const char *text);

#endif
