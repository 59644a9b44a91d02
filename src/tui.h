/* tui.h — the workbench screen: the app, its panes (one file each, with an
 * ops table), the key table and the style slots. Views draw through a
 * tui_backend (tui_backend.h), so curses and the headless test backend run
 * the same code. The data shown lives in a tui_model (tui_model.h). */
#ifndef DG_TUI_H
#define DG_TUI_H
#include "tui_backend.h"
#include "tui_model.h"
#include "theme.h"
#include "hl.h"
#include "problem.h"

/* Key handlers return flags; 0 means "not mine", try the next table. */
enum { TUI_HANDLED = 1, TUI_REDRAW = 2, TUI_QUIT = 4 };

/* UI style slots: enum name, theme name. Capture styles follow them. */
#define TUI_SLOTS(X) \
  X(TEXT, "default") X(TITLE, "ui.title") X(STATUS, "ui.status") \
  X(STATUS_KEY, "ui.status.key") X(MESSAGE, "ui.message") X(ERROR, "ui.error") \
  X(LINENR, "ui.linenr") X(LINENR_CUR, "ui.linenr.current") X(CURSORLINE, "ui.cursorline") \
  X(BORDER, "ui.border") X(PANE_TITLE, "ui.pane.title") X(PANE_FOCUS, "ui.pane.title.focus") \
  X(SEARCH, "ui.search") X(MARK_FED, "ui.mark.fed") X(MARK_FAULT, "ui.mark.fault") \
  X(DIAG_ERROR, "ui.diag.error") X(DIAG_WARNING, "ui.diag.warning") X(DIAG_NOTE, "ui.diag.note") \
  X(CELL_UNCHECKED, "ui.cell.unchecked") X(CELL_EQUIV, "ui.cell.equivalent") \
  X(CELL_BUG, "ui.cell.bug") X(CELL_UNKNOWN, "ui.cell.unknown") X(CELL_FAULT, "ui.cell.fault") \
  X(HEAT1, "ui.cell.heat.1") X(HEAT2, "ui.cell.heat.2") X(HEAT3, "ui.cell.heat.3") \
  X(HEAT4, "ui.cell.heat.4") X(HEAT5, "ui.cell.heat.5") \
  X(CELL_CURSOR, "ui.cell.cursor") X(INDEX, "ui.index") X(INDEX_CUR, "ui.index.current") \
  X(HELP_KEY, "ui.help.key") X(HELP_SECTION, "ui.help.section") \
  X(MENU, "ui.menu") X(SELECTED, "ui.selected") X(NOTICE, "ui.notice") X(PROMPT, "ui.prompt")

#define TUI_SLOT_ENUM(e, n) TUI_ST_##e,
enum { TUI_SLOTS(TUI_SLOT_ENUM) TUI_ST__COUNT };
#undef TUI_SLOT_ENUM

/* Key contexts: which table rows apply. */
#define TUI_CONTEXTS(X) \
  X(ALWAYS, "everywhere") X(GLOBAL, "workbench") X(SOURCE, "source pane") \
  X(PICKER, "tensor picker") X(RESULT, "result pane") X(GALLERY, "gallery") \
  X(MENU, "lists") X(HELP, "help")
#define TUI_CTX_ENUM(e, n) TUI_CTX_##e,
enum { TUI_CONTEXTS(TUI_CTX_ENUM) TUI_CTX__COUNT };
#undef TUI_CTX_ENUM

typedef struct tui_app tui_app;
typedef struct tui_pane tui_pane;
typedef struct tui_job tui_job;
typedef struct tui_checks tui_checks;

typedef struct {
  const char *name;
  int ctx;                                         /* TUI_CTX_* of its keys */
  void (*open)(tui_app *a, tui_pane *p);
  void (*draw)(tui_app *a, tui_pane *p);
  int (*key)(tui_app *a, tui_pane *p, int key);    /* keys not in the table; may be NULL */
  void (*close)(tui_app *a, tui_pane *p);
} tui_pane_ops;

struct tui_pane {
  const tui_pane_ops *ops;
  int y, x, h, w;        /* set by the layout before draw */
  void *st;              /* the view's own state, owned by it */
};

/* The panes; each file ends with its ops table. */
enum { TUI_PANE_SOURCE, TUI_PANE_PICKER, TUI_PANE_RESULT, TUI_PANE_GALLERY,
       TUI_PANE_HELP, TUI_PANE_MENU, TUI_PANE__COUNT };
extern const tui_pane_ops tui_source_ops, tui_picker_ops, tui_result_ops,
  tui_gallery_ops, tui_help_ops, tui_menu_ops;

/* One row of the key table (tui_keys.c): dispatch, the status bar and the
 * '?' help all read it. */
typedef struct {
  int ctx;
  int key;
  const char *name;      /* action, e.g. "search" */
  const char *bar;       /* label in the status bar, NULL: not shown there */
  const char *help;
  int (*fn)(tui_app *a, tui_pane *p, int key);
} tui_binding;
extern const tui_binding tui_bindings[];
extern const size_t tui_nbindings;
extern const char *const tui_context_names[];

/* The one-line prompt (':' commands, '/' search, 'g' index). */
typedef struct {
  bool active;
  char prefix[16];
  dg_buf text;
  /* Called on Enter with the typed text; returns handler flags. */
  int (*done)(tui_app *a, const char *text);
} tui_prompt;

struct tui_app {
  tui_backend *b;
  int w, h;
  dg_theme theme;
  DG_VEC(tui_style) styles;           /* slots, then captures, then combinations */
  DG_VEC(int) combos;                 /* (base, over, id) triples */
  char *datadir;

  /* the open document */
  char *path;                         /* what was opened (spec or kernel); NULL: none */
  char *source;                       /* the kernel file shown; NULL: a spec without one */
  dg_problem *problem;                /* the loaded spec, or NULL */
  char *text;
  size_t len;
  dg_hl_query *query;
  dg_hl_doc *doc;
  int *cap_style;                     /* capture index -> style id */
  tui_model model;
  bool pending;                       /* full highlighting and diagnostics still to do */
  uint64_t stamp[2];                  /* the spec's and the kernel's size and mtime when opened (tui_open.c) */

  tui_pane panes[TUI_PANE__COUNT];
  int focus;                          /* a TUI_PANE_* among the workbench panes */
  int overlay;                        /* TUI_PANE_HELP / _MENU / -1 */
  bool gallery;                       /* the gallery is the screen */
  tui_prompt prompt;
  struct lua_State *lua;              /* ':lua' state, made on first use (tui_lua.c) */
  dg_buf lua_out;                     /* what the last ':lua' printed */
  DG_VEC(int) typed;                  /* keys read while Lua ran, for the loop (tui_lua.c) */
  char *message;                      /* one-line notice; owned */
  bool message_error;
  bool quit;
  tui_job *job;                       /* the background check / fuzz / replay, or NULL (tui_job.c) */
  tui_checks *checks;                 /* last check of each element, for the teaching tabs (tui_teach.c) */
  char *strategy;                     /* the fuzz strategy f runs (F chooses); NULL: the default */
  int tab;                            /* the result pane's tab (TUI_TAB_*) */
  bool zoom;                          /* the result pane takes the whole body (z) */
};

/* ---- tui_app.c ------------------------------------------------------------ */
/* Options of one run of the screen. */
typedef struct {
  const char *path;          /* file to open; NULL: the gallery */
  const char *theme;         /* theme name or path; NULL: "default" */
  const char *datadir;       /* where samples/, themes/, grammars/ live */
  bool mono;
} tui_options;

/* Creates the app on backend b (taken over: freed with the app). Errors a
 * user caused (bad theme lines, unreadable file) go to msgs as lines. */
tui_app *tui_app_new(tui_backend *b, const tui_options *o, dg_buf *msgs);
void tui_app_free(tui_app *a);
/* Files bigger than this get a first paint from a highlighted prefix, the
 * rest (whole-file highlighting, syntax and front-end diagnostics) follows
 * in tui_app_idle before the first key is read. */
#define TUI_PREFIX_BYTES (64 * 1024)
#define TUI_PREFIX_MIN (16 * 1024)     /* the prefix: at least this, and a screen past the first kernel */
/* Does pending work; true when it did some (the screen needs a redraw). */
bool tui_app_idle(tui_app *a);
/* Closes the open document (tui_open.c). */
void tui_app_close_doc(tui_app *a);
/* Opens a file in the workbench (a .cu, a problem .lua, or a directory of one). */
bool tui_app_open(tui_app *a, const char *path);
/* Whether the open spec or kernel changed on disk since it was opened (a job would run
 * another kernel than the one shown); says so on the status line. */
bool tui_app_stale(tui_app *a);
/* Places the panes for the backend's current size. */
void tui_app_layout(tui_app *a);
/* Draws the whole screen and flushes. */
void tui_app_draw(tui_app *a);
/* Feeds one key; returns its flags (TUI_QUIT when the app should end). */
int tui_app_key(tui_app *a, int key);
/* The loop: draw, key, until quit or the backend has no more keys. With
 * dump set (headless), a dump after each key or at <Dump> markers. */
int tui_app_run(tui_app *a, bool dump, dg_buf *msgs);

/* Switches theme (name or path); bad lines are reported into msgs. */
bool tui_app_theme(tui_app *a, const char *name, dg_buf *msgs);
/* Keys while the prompt is active (tui_cmdline.c). */
int tui_prompt_key(tui_app *a, int key);
/* The result pane's text, shown on its summary tab. */
void tui_app_result(tui_app *a, const char *text);
void tui_app_message(tui_app *a, bool error, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
void tui_app_prompt(tui_app *a, const char *prefix, const char *init,
                    int (*done)(tui_app *a, const char *text));
/* Style id for a theme name (resolved once, then cached). */
int tui_style_named(tui_app *a, const char *name);
/* A style drawn over another one (cursor line over a keyword, ...). */
int tui_style_over(tui_app *a, int base, int over);
/* Draws a pane frame title line at row y of p; focus picks the style. */
void tui_draw_title(tui_app *a, tui_pane *p, const char *title);
/* The workbench panes in Tab order. */
void tui_app_focus(tui_app *a, int pane);

/* ---- background jobs (tui_job.c) ------------------------------------------
 * Long work (a check, a fuzz campaign, a replay) runs in a forked child that
 * writes records back over a pipe while the screen keeps drawing and reading
 * keys. A record is one line: a tag and fields separated by tabs, each field
 * with backslash, tab and newline escaped (\\ \t \n). The child ends with a
 * "done" record and exit 0; anything else (a signal, another exit status, no
 * "done", the time limit) ends the job as a failure, reported in the result
 * pane; the screen stays up. One job at a time.
 * For tests, in the child: DIRIGO_TEST_CHILD_CRASH=1 sends one progress
 * record then dies of SIGSEGV (=exit: exits with status 3 instead); DIRIGO_TEST_CHILD_HANG=1 sleeps forever;
 * DIRIGO_TUI_JOB_LIMIT=S sets the time limit (seconds) of every job. */
typedef struct {
  const char *what;                                 /* "check", "fuzz", "replay" */
  /* In the child (the app is the fork's copy): the work; records through
   * tui_job_send. Returning ends the child with a "done" record. */
  void (*child)(tui_app *a, void *ud);
  /* In the parent: one record (fields decoded; f[0] is the tag). */
  void (*record)(tui_app *a, void *ud, char **f, int n);
  /* In the parent, once: failure is NULL when the child finished, else why
   * it did not ("cancelled", "crashed: killed by signal 11 ..."). */
  void (*end)(tui_app *a, void *ud, const char *failure);
  void (*free)(void *ud);
} tui_job_ops;
/* Starts a job (ud is owned by it). False, with a message, when one runs. */
bool tui_job_start(tui_app *a, const tui_job_ops *ops, void *ud, const char *label, double limit_s);
/* Child side: sends one record of n fields (f[0] the tag). */
void tui_job_send(const char *const *f, int n);
/* One field made by fmt (tabs in it stay in the field). */
void tui_job_sendf(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Fields made by fmt, separated by the tabs in it. */
void tui_job_sendt(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Child side: progress, done of total units, and what it is doing. */
void tui_job_progress(int64_t done, int64_t total, const char *phase);
/* Parent: the job's fd to wait on, -1 when none runs. */
int tui_job_fd(const tui_app *a);
/* Parent: reads what is there and applies it; true when the screen changed. */
bool tui_job_pump(tui_app *a);
/* Parent: blocks until the job ends, or reports n units done (n > 0). */
void tui_job_wait(tui_app *a, int64_t n);
/* Parent: kills the job; its end is called with `why`. */
void tui_job_cancel(tui_app *a, const char *why);
/* The status bar's progress (bar, label, phase, elapsed); false when no job. */
bool tui_job_status(const tui_app *a, char *label, size_t n, double *frac);

/* ---- the result pane's tabs (tui_teach.c) --------------------------------- */
#define TUI_TABS(X) X(SUMMARY, "summary") X(SLICE, "slice") X(TERMS, "terms") \
  X(SMT, "smt") X(STEPS, "steps")
#define TUI_TAB_ENUM(e, n) TUI_TAB_##e,
enum { TUI_TABS(TUI_TAB_ENUM) TUI_TAB__COUNT };
#undef TUI_TAB_ENUM
extern const char *const tui_tab_names[];
/* What one check of one element left, for the teaching tabs. */
typedef struct {
  uint32_t line;          /* 1-based line of the shown source; 0: another file */
  char *label;            /* "file.cu:6:   y[i] = x[i];" */
} tui_slice_line;
typedef struct {
  int tensor;             /* model tensor */
  int64_t flat;
  char *elem;             /* "y[31]" */
  char *verdict;
  char *summary;          /* the result pane text of that check */
  DG_VEC(tui_slice_line) slice;
  DG_VEC(tui_slice_line) faults;  /* race / out-of-bounds lines; label: what */
  char *kernel_term, *ref_term, *smtlib, *witness, *writer, *steps;
  DG_VEC(uint32_t) step_lines;    /* per step of `steps`: its line in the shown source, 0: another file */
} tui_check_info;
/* Takes ci (its strings): replaces the element's previous record. */
void tui_checks_put(tui_app *a, tui_check_info *ci);
const tui_check_info *tui_checks_get(const tui_app *a, int tensor, int64_t flat);
void tui_checks_free(tui_app *a);
void tui_check_info_free(tui_check_info *ci);
/* The text of tab `tab` for the selected element (caller frees). */
char *tui_teach_text(tui_app *a, int tab);
/* The selection moved: the fed marks follow the selected element's record. */
void tui_teach_follow(tui_app *a);

/* ---- commands shared between views ---------------------------------------- */
int tui_cmd_run(tui_app *a, const char *line);     /* tui_cmdline.c: ':' commands */
/* tui_cmdline.c: the i-th ':' command of the table (the '?' screen lists them);
 * false past the end. Strings are static. */
bool tui_cmd_at(size_t i, const char **name, const char **usage, const char **help);
/* tui_check.c: the symbolic check of the picker's selected element. */
int tui_check_run(tui_app *a);
/* tui_fuzz.c: a campaign on the emulator; strategy NULL or "": the chosen one. */
int tui_fuzz_run(tui_app *a, const char *strategy);
/* tui_check.c: check --auto (corners, tails, block boundaries, random ones). */
int tui_check_auto(tui_app *a);
/* tui_check.c: replays the witness of the selected element's last check. */
int tui_check_replay(tui_app *a);
/* tui_lua.c: ':lua CODE' (expression or statements) into the result pane. */
int tui_lua_run(tui_app *a, const char *code);
/* Runs the user's init.lua if there is one (messages to the status line). */
void tui_lua_init(tui_app *a);
/* The hooks workbench.on_check / on_fuzz, when init.lua or :lua set them. */
void tui_lua_on_check(tui_app *a, const char *verdict, const char *tensor, const int64_t *idx, int n);
void tui_lua_on_fuzz(tui_app *a, const char *summary);
void tui_lua_close(tui_app *a);
/* Source pane: move the cursor to a line (1-based) and centre it. */
void tui_source_goto(tui_app *a, uint32_t line);
uint32_t tui_source_cursor(tui_app *a);
/* Picker: the selected tensor and element (false when there is none). */
bool tui_picker_selected(tui_app *a, int *tensor, int64_t idx[TUI_MAX_DIMS]);
/* Picker: selects element idx (ndim entries) of model tensor `tensor`. */
void tui_picker_select(tui_app *a, int tensor, const int64_t *idx);
/* Menu overlay: shows items; on Enter calls pick(a, i). Items copied. */
void tui_menu_open(tui_app *a, const char *title, const char *const *items, size_t n,
                   void (*pick)(tui_app *a, size_t i));

/* Key handlers referenced by the table (each in its view's file). */
#define TUI_HANDLER(fn) int fn(tui_app *a, tui_pane *p, int key);
#define TUI_HANDLERS(X) \
  X(tui_act_quit) X(tui_act_help) X(tui_act_next_pane) X(tui_act_prev_pane) X(tui_act_command) \
  X(tui_act_redraw) X(tui_act_check) X(tui_act_fuzz) X(tui_act_gallery) \
  X(tui_act_interrupt) X(tui_act_cancel) X(tui_act_auto) X(tui_act_strategy) X(tui_act_replay) \
  X(tui_act_tab_next) X(tui_act_tab) X(tui_act_zoom) X(tui_teach_step_next) X(tui_teach_step_prev) \
  X(tui_src_down) X(tui_src_up) X(tui_src_page_down) X(tui_src_page_up) X(tui_src_top) \
  X(tui_src_bottom) X(tui_src_search) X(tui_src_next) X(tui_src_prev) X(tui_src_kernels) \
  X(tui_src_next_kernel) X(tui_src_prev_kernel) X(tui_src_diag_next) X(tui_src_left) X(tui_src_right) \
  X(tui_pick_left) X(tui_pick_right) X(tui_pick_up) X(tui_pick_down) X(tui_pick_page_up) \
  X(tui_pick_page_down) X(tui_pick_home) X(tui_pick_end) X(tui_pick_goto) X(tui_pick_tensor) \
  X(tui_pick_dims) X(tui_pick_slice_next) X(tui_pick_slice_prev) X(tui_pick_slice_dim) \
  X(tui_res_down) X(tui_res_up) X(tui_res_page_down) X(tui_res_page_up) X(tui_res_top) X(tui_res_bottom) \
  X(tui_gal_down) X(tui_gal_up) X(tui_gal_open) X(tui_gal_filter) \
  X(tui_menu_down) X(tui_menu_up) X(tui_menu_pick) X(tui_menu_close) \
  X(tui_help_down) X(tui_help_up) X(tui_help_close) X(tui_help_page_down) X(tui_help_page_up) \
  X(tui_help_end) X(tui_help_home)
TUI_HANDLERS(TUI_HANDLER)
#undef TUI_HANDLER

#endif
