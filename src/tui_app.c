/* tui_app.c — the workbench app: styles from the theme, layout, key
 * dispatch through the key table, the title and status bars, the loop. */
#include "tui.h"
#include "lua_fuzz.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

/* ---- styles ---------------------------------------------------------------- */

#define SLOT_NAME(e, n) n,
static const char *const slot_names[] = { TUI_SLOTS(SLOT_NAME) };
#undef SLOT_NAME

static dg_style resolve(tui_app *a, const char *name)
{
  dg_style base = DG_STYLE_UNSET, s;
  dg_theme_lookup(&a->theme, "default", &base);
  if (base.fg == DG_COLOR_UNSET) base.fg = DG_COLOR_DEFAULT;
  if (base.bg == DG_COLOR_UNSET) base.bg = DG_COLOR_DEFAULT;
  if (strcmp(name, "default") && dg_theme_lookup(&a->theme, name, &s)) return dg_style_merge(base, s);
  return base;
}

int tui_style_named(tui_app *a, const char *name)
{
  for (size_t i = 0; i < a->styles.n; i++)
    if (!strcmp(a->styles.v[i].name, name)) return (int)i;
  tui_style s = { dg_strdup(name), resolve(a, name) };
  dg_vec_push(&a->styles, s);
  return (int)a->styles.n - 1;
}

int tui_style_over(tui_app *a, int base, int over)
{
  if (base == over || over == TUI_ST_TEXT) return base;
  if (base == TUI_ST_TEXT) return over;
  for (size_t i = 0; i + 2 < a->combos.n; i += 3)
    if (a->combos.v[i] == base && a->combos.v[i + 1] == over) return a->combos.v[i + 2];
  dg_style b = a->styles.v[base].st, o = a->styles.v[over].st;
  /* over's colours win except where over only inherited the base text colour */
  dg_style def = a->styles.v[TUI_ST_TEXT].st, m = b;
  if (o.fg != def.fg) m.fg = o.fg;
  if (o.bg != def.bg) m.bg = o.bg;
  m.attr |= o.attr;
  tui_style s = { dg_printf("%s+%s", a->styles.v[base].name, a->styles.v[over].name), m };
  dg_vec_push(&a->styles, s);
  int id = (int)a->styles.n - 1;
  dg_vec_push(&a->combos, base);
  dg_vec_push(&a->combos, over);
  dg_vec_push(&a->combos, id);
  return id;
}

static void styles_reset(tui_app *a)
{
  for (size_t i = 0; i < a->styles.n; i++) free(a->styles.v[i].name);
  a->styles.n = 0;
  a->combos.n = 0;
  for (int i = 0; i < TUI_ST__COUNT; i++) {
    tui_style s = { dg_strdup(slot_names[i]), resolve(a, slot_names[i]) };
    dg_vec_push(&a->styles, s);
  }
  free(a->cap_style);
  a->cap_style = NULL;
  unsigned nc = dg_hl_query_ncaptures(a->query);
  if (nc) {
    a->cap_style = dg_malloc(nc * sizeof *a->cap_style);
    for (unsigned i = 0; i < nc; i++) a->cap_style[i] = tui_style_named(a, dg_hl_query_capture(a->query, i));
  }
  a->b->styles = (const void *)&a->styles;
}

/* Loads a theme by name or path; messages for bad lines go to msgs. */
static bool load_theme(tui_app *a, const char *name, dg_buf *msgs)
{
  char *path = dg_theme_find(name, a->datadir);
  if (!path) {
    dg_buf_printf(msgs, "dirigo: theme '%s' not found (looked in $XDG_CONFIG_HOME/dirigo/themes and %s/themes)\n",
                  name, a->datadir);
    return false;
  }
  dg_theme t;
  dg_theme_init(&t);
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  dg_diags d = {0};
  int r = dg_theme_load(&t, path, &sm, &d);
  for (size_t i = 0; i < d.v.n; i++) {
    dg_diag_format(msgs, &sm, &d.v.v[i]);
    dg_buf_putc(msgs, '\n');
  }
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  free(path);
  if (r < 0) {
    dg_theme_free(&t);
    return false;
  }
  dg_theme_free(&a->theme);
  a->theme = t;
  styles_reset(a);
  return true;
}

bool tui_app_theme(tui_app *a, const char *name, dg_buf *msgs)
{
  return load_theme(a, name, msgs);
}

/* ---- app life -------------------------------------------------------------- */

static const tui_pane_ops *const pane_ops[TUI_PANE__COUNT] = {
  [TUI_PANE_SOURCE] = &tui_source_ops, [TUI_PANE_PICKER] = &tui_picker_ops,
  [TUI_PANE_RESULT] = &tui_result_ops, [TUI_PANE_GALLERY] = &tui_gallery_ops,
  [TUI_PANE_HELP] = &tui_help_ops, [TUI_PANE_MENU] = &tui_menu_ops,
};

tui_app *tui_app_new(tui_backend *b, const tui_options *o, dg_buf *msgs)
{
  tui_app *a = dg_calloc(1, sizeof *a);
  a->b = b;
  a->datadir = dg_strdup(o->datadir);
  a->overlay = -1;
  a->focus = TUI_PANE_SOURCE;
  dg_theme_init(&a->theme);
  tui_model_init(&a->model);
  char *qpath = dg_printf("%s/grammars/highlights.scm", a->datadir);
  dg_diags d = {0};
  a->query = dg_hl_query_load(qpath, &d);
  for (size_t i = 0; i < d.v.n; i++) dg_buf_printf(msgs, "%s: %s\n", dg_severity_name(d.v.v[i].sev), d.v.v[i].msg);
  dg_diags_free(&d);
  free(qpath);
  styles_reset(a);
  if (!load_theme(a, o->theme ? o->theme : "default", msgs) && o->theme)
    load_theme(a, "default", msgs);
  if (o->mono) b->colour = false;
  for (int i = 0; i < TUI_PANE__COUNT; i++) {
    a->panes[i].ops = pane_ops[i];
    if (a->panes[i].ops->open) a->panes[i].ops->open(a, &a->panes[i]);
  }
  a->gallery = o->path == NULL;
  return a;
}

void tui_app_free(tui_app *a)
{
  if (!a) return;
  tui_job_cancel(a, "the workbench closed");
  free(a->strategy);
  for (int i = 0; i < TUI_PANE__COUNT; i++)
    if (a->panes[i].ops->close) a->panes[i].ops->close(a, &a->panes[i]);
  tui_lua_close(a);
  dg_strategies_unload();                    /* Lua strategies F or :fuzz loaded */
  tui_app_close_doc(a);
  dg_hl_query_free(a->query);
  for (size_t i = 0; i < a->styles.n; i++) free(a->styles.v[i].name);
  dg_vec_free(&a->styles);
  dg_vec_free(&a->combos);
  free(a->cap_style);
  dg_theme_free(&a->theme);
  dg_buf_free(&a->prompt.text);
  dg_vec_free(&a->typed);
  free(a->message);
  free(a->datadir);
  a->b->ops->free(a->b);
  free(a);
}

void tui_app_message(tui_app *a, bool error, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  free(a->message);
  a->message = dg_vprintf(fmt, ap);
  va_end(ap);
  a->message_error = error;
}

void tui_app_result(tui_app *a, const char *text)
{
  tui_model_set_result(&a->model, text);
  a->tab = TUI_TAB_SUMMARY;
}

void tui_app_focus(tui_app *a, int pane)
{
  a->focus = pane;
}

/* ---- layout and drawing ---------------------------------------------------- */

void tui_app_layout(tui_app *a)
{
  a->b->ops->size(a->b, &a->w, &a->h);
  int top = 1, bodyh = a->h - 2 > 0 ? a->h - 2 : 0, w = a->w;
  tui_pane *P = a->panes;
  P[TUI_PANE_GALLERY] = (tui_pane){ P[TUI_PANE_GALLERY].ops, top, 0, bodyh, w, P[TUI_PANE_GALLERY].st };
  P[TUI_PANE_HELP] = (tui_pane){ P[TUI_PANE_HELP].ops, top, 0, bodyh, w, P[TUI_PANE_HELP].st };
  int mw = w - 8 < 60 ? w - 8 : 60, mh = bodyh - 4 < 16 ? bodyh - 4 : 16;
  if (mw < 10) mw = w;
  if (mh < 3) mh = bodyh;
  P[TUI_PANE_MENU] = (tui_pane){ P[TUI_PANE_MENU].ops, top + (bodyh - mh) / 2, (w - mw) / 2, mh, mw,
                                 P[TUI_PANE_MENU].st };
  tui_pane *s = &P[TUI_PANE_SOURCE], *pk = &P[TUI_PANE_PICKER], *r = &P[TUI_PANE_RESULT];
  if (w >= 72) {
    int rw = w * 2 / 5;
    if (rw > 64) rw = 64;
    int ph = bodyh * 3 / 5;
    s->y = top, s->x = 0, s->h = bodyh, s->w = w - rw - 1;
    pk->y = top, pk->x = w - rw, pk->h = ph, pk->w = rw;
    r->y = top + ph, r->x = w - rw, r->h = bodyh - ph, r->w = rw;
  } else {                                        /* narrow: stacked */
    int sh = bodyh * 2 / 5, ph = (bodyh - sh) * 3 / 5;
    s->y = top, s->x = 0, s->h = sh, s->w = w;
    pk->y = top + sh, pk->x = 0, pk->h = ph, pk->w = w;
    r->y = top + sh + ph, r->x = 0, r->h = bodyh - sh - ph, r->w = w;
  }
  if (a->zoom) r->y = top, r->x = 0, r->h = bodyh, r->w = w;   /* z: the result pane alone */
}

void tui_draw_title(tui_app *a, tui_pane *p, const char *title)
{
  bool focus = !a->gallery && a->overlay < 0 && p == &a->panes[a->focus];
  int st = focus ? TUI_ST_PANE_FOCUS : TUI_ST_PANE_TITLE;
  tui_draw_fill(a->b, p->y, p->x, p->w, st);
  tui_draw_str(a->b, p->y, p->x + 1, p->w - 1, title, st);
}

static int context_now(const tui_app *a)
{
  if (a->overlay >= 0) return a->panes[a->overlay].ops->ctx;
  if (a->gallery) return TUI_CTX_GALLERY;
  return a->panes[a->focus].ops->ctx;
}

static void draw_status(tui_app *a)
{
  int y = a->h - 1;
  tui_backend *b = a->b;
  tui_draw_fill(b, y, 0, a->w, TUI_ST_STATUS);
  if (a->prompt.active) {
    int x = tui_draw_str(b, y, 0, a->w, a->prompt.prefix, TUI_ST_PROMPT);
    x = tui_draw_str(b, y, x, a->w - x, a->prompt.text.s ? a->prompt.text.s : "", TUI_ST_PROMPT);
    b->ops->cursor(b, y, x < a->w ? x : a->w - 1);
    return;
  }
  b->ops->cursor(b, -1, -1);
  char label[160];
  double frac;
  if (tui_job_status(a, label, sizeof label, &frac)) {   /* a job runs: its progress first */
    enum { BAR = 12 };
    int x = 0, full = (int)(frac * BAR + 0.5);
    for (int i = 0; i < BAR && x < a->w; i++) x += tui_draw_cp(b, y, x, a->w, i < full ? 0x2588 : 0x2591, TUI_ST_STATUS_KEY);
    x = tui_draw_printf(b, y, x + 1, a->w - x - 1, TUI_ST_STATUS, "%s  ", label);
    x = tui_draw_str(b, y, x, a->w - x, "x", TUI_ST_STATUS_KEY);
    x = tui_draw_str(b, y, x + 1, a->w - x - 1, "cancel  ", TUI_ST_STATUS);
    if (a->message && x + tui_text_width(a->message, strlen(a->message)) > a->w) {
      /* no room for both (80 columns): the message answers the key just pressed, the bar stays */
      tui_draw_fill(b, y, BAR, a->w - BAR, TUI_ST_STATUS);
      x = BAR + 1;
    }
    if (a->message) tui_draw_str(b, y, x, a->w - x, a->message, a->message_error ? TUI_ST_ERROR : TUI_ST_MESSAGE);
    return;
  }
  if (a->message) {
    tui_draw_str(b, y, 0, a->w, a->message, a->message_error ? TUI_ST_ERROR : TUI_ST_MESSAGE);
    return;
  }
  int ctx = context_now(a), x = 0;
  for (int pass = 0; pass < 2; pass++) {
    int want = pass == 0 ? ctx : TUI_CTX_GLOBAL;
    if (pass == 1 && (a->overlay >= 0 || a->gallery || ctx == TUI_CTX_GLOBAL)) break;
    for (size_t i = 0; i < tui_nbindings; i++) {
      const tui_binding *k = &tui_bindings[i];
      if (k->ctx != want || !k->bar) continue;
      char kb[24];
      tui_key_name(k->key, kb, sizeof kb);
      int need = tui_text_width(kb, strlen(kb)) + 1 + (int)strlen(k->bar) + 2;
      if (x + need > a->w) break;
      x = tui_draw_str(b, y, x, a->w - x, kb, TUI_ST_STATUS_KEY);
      x = tui_draw_str(b, y, x + 1, a->w - x - 1, k->bar, TUI_ST_STATUS);
      x += 2;
    }
  }
}

static void draw_titlebar(tui_app *a)
{
  tui_draw_fill(a->b, 0, 0, a->w, TUI_ST_TITLE);
  int x = tui_draw_str(a->b, 0, 1, a->w - 1, "dirigo", TUI_ST_TITLE);
  if (a->gallery) tui_draw_str(a->b, 0, x, a->w - x, " — samples gallery", TUI_ST_TITLE);
  else if (a->path && a->source && strcmp(a->path, a->source))
    tui_draw_printf(a->b, 0, x, a->w - x, TUI_ST_TITLE, " — %s (%s)", a->path, a->source);
  else if (a->path) tui_draw_printf(a->b, 0, x, a->w - x, TUI_ST_TITLE, " — %s", a->path);
}

void tui_app_draw(tui_app *a)
{
  tui_app_layout(a);
  a->b->ops->clear(a->b);
  if (a->w < 20 || a->h < 6) {
    tui_draw_str(a->b, 0, 0, a->w, a->w >= 18 ? "terminal too small" : "too small", TUI_ST_ERROR);
    a->b->ops->flush(a->b);
    return;
  }
  draw_titlebar(a);
  if (a->gallery) {
    a->panes[TUI_PANE_GALLERY].ops->draw(a, &a->panes[TUI_PANE_GALLERY]);
  } else if (a->zoom) {
    a->panes[TUI_PANE_RESULT].ops->draw(a, &a->panes[TUI_PANE_RESULT]);
  } else {
    for (int i = TUI_PANE_SOURCE; i <= TUI_PANE_RESULT; i++) a->panes[i].ops->draw(a, &a->panes[i]);
    if (a->w >= 72)                               /* the column between source and the right side */
      for (int y = 1; y < a->h - 1; y++) a->b->ops->cell(a->b, y, a->panes[TUI_PANE_PICKER].x - 1, 0x2502, TUI_ST_BORDER);
  }
  if (a->overlay >= 0) a->panes[a->overlay].ops->draw(a, &a->panes[a->overlay]);
  draw_status(a);
  a->b->ops->flush(a->b);
}

/* ---- keys ------------------------------------------------------------------ */

static int run_table(tui_app *a, int ctx, tui_pane *p, int key)
{
  for (size_t i = 0; i < tui_nbindings; i++)
    if (tui_bindings[i].ctx == ctx && tui_bindings[i].key == key) {
      int r = tui_bindings[i].fn(a, p, key);
      if (r) return r;
    }
  return 0;
}


int tui_app_key(tui_app *a, int key)
{
  if (key == TUI_KEY_RESIZE) return TUI_HANDLED | TUI_REDRAW;
  if (a->prompt.active) return tui_prompt_key(a, key);
  bool had_message = a->message != NULL;
  free(a->message);
  a->message = NULL;
  int r = run_table(a, TUI_CTX_ALWAYS, NULL, key);
  if (!r && a->overlay >= 0) {
    tui_pane *p = &a->panes[a->overlay];
    r = run_table(a, p->ops->ctx, p, key);
    if (!r && p->ops->key) r = p->ops->key(a, p, key);
  } else if (!r && a->gallery) {
    tui_pane *p = &a->panes[TUI_PANE_GALLERY];
    r = run_table(a, TUI_CTX_GALLERY, p, key);
    if (!r && p->ops->key) r = p->ops->key(a, p, key);
  } else if (!r) {
    tui_pane *p = &a->panes[a->focus];
    r = run_table(a, p->ops->ctx, p, key);
    if (!r) r = run_table(a, TUI_CTX_GLOBAL, p, key);
    if (!r && p->ops->key) r = p->ops->key(a, p, key);
  }
  if (!r) {
    char kb[24];
    tui_app_message(a, true, "%s is not bound here; ? lists the keys",
                    tui_key_name(key, kb, sizeof kb));
    return TUI_HANDLED | TUI_REDRAW;
  }
  if (had_message) r |= TUI_REDRAW;
  if (!(r & TUI_QUIT)) tui_teach_follow(a);     /* fed marks follow the selected element */
  return r;
}

int tui_app_run(tui_app *a, bool dump, dg_buf *msgs)
{
  tui_app_draw(a);                           /* the first paint */
  if (tui_app_idle(a)) tui_app_draw(a);
  char *err = NULL;
  bool marked = dump && tui_headless_marked(a->b);
  if (dump && !tui_headless_dump(a->b, &err)) goto fail;
  for (;;) {
    int key;
    if (a->typed.n) {                        /* typed while :lua ran (tui_lua.c) */
      key = a->typed.v[0];
      memmove(a->typed.v, a->typed.v + 1, --a->typed.n * sizeof *a->typed.v);
    } else {
      key = a->job ? a->b->ops->getkey_or(a->b, tui_job_fd(a), 250) : a->b->ops->getkey(a->b);
    }
    if (key == TUI_KEY_NONE) break;
    if (key == TUI_KEY_IDLE) {               /* the job wrote, or a tick for its clock */
      tui_job_pump(a);
      tui_app_draw(a);
      continue;
    }
    if (key == TUI_KEY_DUMP) {
      if (dump && !tui_headless_dump(a->b, &err)) goto fail;
      continue;
    }
    if (key == TUI_KEY_WAIT) {               /* scripts: the job's results arrive here */
      tui_job_wait(a, tui_headless_wait_arg(a->b));
      tui_app_draw(a);
      if (dump && !marked && !tui_headless_dump(a->b, &err)) goto fail;
      continue;
    }
    int r = tui_app_key(a, key);
    tui_app_idle(a);                         /* e.g. a document opened from the gallery */
    if (!(r & TUI_QUIT)) tui_app_draw(a);
    if (dump && !marked && !tui_headless_dump(a->b, &err)) goto fail;
    if (r & TUI_QUIT || a->quit) break;
  }
  return 0;
fail:
  dg_buf_printf(msgs, "dirigo: %s\n", err);
  free(err);
  return -1;
}

/* ---- global actions -------------------------------------------------------- */

int tui_act_quit(tui_app *a, tui_pane *p, int key)
{
  a->quit = true;
  return TUI_HANDLED | TUI_QUIT;
}

int tui_act_redraw(tui_app *a, tui_pane *p, int key) { return TUI_HANDLED | TUI_REDRAW; }

int tui_act_help(tui_app *a, tui_pane *p, int key)
{
  a->overlay = TUI_PANE_HELP;
  if (a->panes[TUI_PANE_HELP].ops->open) a->panes[TUI_PANE_HELP].ops->open(a, &a->panes[TUI_PANE_HELP]);
  return TUI_HANDLED | TUI_REDRAW;
}

static const int tab_order[] = { TUI_PANE_SOURCE, TUI_PANE_PICKER, TUI_PANE_RESULT };

static int step_focus(tui_app *a, int d)
{
  a->zoom = false;                             /* the other panes come back */
  int i = 0;
  while (tab_order[i] != a->focus) i++;
  a->focus = tab_order[(i + d + 3) % 3];
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_act_next_pane(tui_app *a, tui_pane *p, int key) { return step_focus(a, 1); }
int tui_act_prev_pane(tui_app *a, tui_pane *p, int key) { return step_focus(a, -1); }

static int command_done(tui_app *a, const char *text) { return tui_cmd_run(a, text); }

int tui_act_command(tui_app *a, tui_pane *p, int key)
{
  tui_app_prompt(a, ":", "", command_done);
  return TUI_HANDLED | TUI_REDRAW;
}

int tui_act_gallery(tui_app *a, tui_pane *p, int key)
{
  a->gallery = true;
  return TUI_HANDLED | TUI_REDRAW;
}

/* z: the result pane takes the whole body (long terms, the SMT-LIB query), or gives it back */
int tui_act_zoom(tui_app *a, tui_pane *p, int key)
{
  a->zoom = !a->zoom;
  if (a->zoom) a->focus = TUI_PANE_RESULT;
  return TUI_HANDLED | TUI_REDRAW;
}
