/* tui.c — the screen fed through its model API, as a checker or a fuzz
 * campaign will feed it: per-cell verdicts, fuzz heat, source marks and the
 * result text, drawn by the real views on the headless backend. Also the key
 * table's consistency and the key-name notation. */
#include "tui.h"
#include "../tap.h"

static char *row(tui_app *a, int y) { return tui_headless_row(a->b, y); }

/* Screen row holding `needle`, or -1. */
static int find_row(tui_app *a, const char *needle)
{
  for (int y = 0; y < a->h; y++) {
    char *r = row(a, y);
    bool hit = strstr(r, needle) != NULL;
    free(r);
    if (hit) return y;
  }
  return -1;
}

/* ---- a background job: the record codec, its end, a crash, a cancel, the limit ---- */
typedef struct { int n; char *f[4]; bool ended; char *why; int64_t done; } job_seen;

static void codec_child(tui_app *a, void *ud)
{
  const char *f[4] = { "rec", "a\tb", "line1\nline2", "back\\slash\\n" };
  tui_job_progress(1, 2, "half");
  tui_job_send(f, 4);
  tui_job_sendt("two", "x\ty");
}

static void codec_record(tui_app *a, void *ud, char **f, int n)
{
  job_seen *s = ud;
  if (!strcmp(f[0], "rec")) {
    s->n = n;
    for (int i = 1; i < n && i < 4; i++) s->f[i - 1] = dg_strdup(f[i]);
  } else if (!strcmp(f[0], "two") && n == 3 && !strcmp(f[1], "x") && !strcmp(f[2], "y")) s->f[3] = dg_strdup("two");
}

static void codec_end(tui_app *a, void *ud, const char *failure)
{
  job_seen *s = ud;
  s->ended = true;
  s->why = failure ? dg_strdup(failure) : NULL;
}

static void seen_free(job_seen *s)
{
  for (int i = 0; i < 4; i++) free(s->f[i]);
  free(s->why);
  memset(s, 0, sizeof *s);
}

static const tui_job_ops codec_ops = { "test", codec_child, codec_record, codec_end, NULL };

static void test_jobs(tui_app *a)
{
  job_seen s = {0};
  char label[128];
  double frac;
  ok(tui_job_start(a, &codec_ops, &s, "codec", 30), "a job starts");
  ok(!tui_job_start(a, &codec_ops, &s, "again", 30), "a second one is refused while it runs");
  tui_job_wait(a, 1);
  ok(tui_job_status(a, label, sizeof label, &frac), "after <Wait 1> it still runs");
  has_str(label, "codec: 1/2 half", "its progress reads 1 of 2");
  ok(frac > 0.49 && frac < 0.51, "the bar is half full");
  tui_job_wait(a, 0);
  ok(s.ended && !s.why && tui_job_fd(a) < 0, "it ends with its done record");
  is_int(s.n, 4, "a record of four fields");
  is_str(s.f[0] ? s.f[0] : "", "a\tb", "a tab inside a field survives");
  is_str(s.f[1] ? s.f[1] : "", "line1\nline2", "a newline too");
  is_str(s.f[2] ? s.f[2] : "", "back\\slash\\n", "and backslashes");
  is_str(s.f[3] ? s.f[3] : "", "two", "sendt splits its text at tabs");
  seen_free(&s);

  setenv("DIRIGO_TEST_CHILD_CRASH", "1", 1);
  tui_job_start(a, &codec_ops, &s, "crash", 30);
  tui_job_wait(a, 0);
  unsetenv("DIRIGO_TEST_CHILD_CRASH");
  has_str(s.why ? s.why : "", "crashed: killed by signal 11", "a child's SIGSEGV ends the job as a crash");
  seen_free(&s);

  setenv("DIRIGO_TEST_CHILD_HANG", "1", 1);
  tui_job_start(a, &codec_ops, &s, "hang", 30);
  tui_job_cancel(a, "cancelled");
  is_str(s.why ? s.why : "", "cancelled", "cancel kills a hung child");
  seen_free(&s);
  setenv("DIRIGO_TUI_JOB_LIMIT", "0.2", 1);
  tui_job_start(a, &codec_ops, &s, "hang", 30);
  tui_job_wait(a, 0);
  has_str(s.why ? s.why : "", "ran past its time limit of 0 s", "the time limit stops it");
  unsetenv("DIRIGO_TUI_JOB_LIMIT");
  unsetenv("DIRIGO_TEST_CHILD_HANG");
  seen_free(&s);
}

static void keys(tui_app *a, const char *s)
{
  while (*s) {
    int w, h;
    const char *err = NULL;
    tui_app_key(a, tui_key_parse(&s, &w, &h, &err));
  }
  tui_app_draw(a);
}

int main(void)
{
  const char *src = getenv("DG_SRCDIR");
  if (!src) src = ".";

  /* key names round-trip */
  const char *s = "<Down><C-c>x<lt><Resize 80x24>";
  int w = 0, h = 0;
  const char *err = NULL;
  is_int(tui_key_parse(&s, &w, &h, &err), TUI_KEY_DOWN, "<Down>");
  is_int(tui_key_parse(&s, &w, &h, &err), 3, "<C-c>");
  is_int(tui_key_parse(&s, &w, &h, &err), 'x', "x");
  is_int(tui_key_parse(&s, &w, &h, &err), '<', "<lt>");
  is_int(tui_key_parse(&s, &w, &h, &err), TUI_KEY_RESIZE, "<Resize 80x24>");
  ok(w == 80 && h == 24, "resize size");
  s = "<Nope>";
  is_int(tui_key_parse(&s, &w, &h, &err), TUI_KEY_NONE, "unknown key name refused");
  char kb[24];
  is_str(tui_key_name(TUI_KEY_PGDN, kb, sizeof kb), "<PageDown>", "key name");
  is_str(tui_key_name(0x6f22, kb, sizeof kb), "漢", "a wide key names itself");

  /* the key table: every row has a handler and help; no key bound twice in a context */
  int dup = 0, missing = 0;
  for (size_t i = 0; i < tui_nbindings; i++) {
    if (!tui_bindings[i].fn || !tui_bindings[i].help || !*tui_bindings[i].help) missing++;
    for (size_t j = i + 1; j < tui_nbindings; j++)
      if (tui_bindings[i].ctx == tui_bindings[j].ctx && tui_bindings[i].key == tui_bindings[j].key) dup++;
  }
  is_int(missing, 0, "every binding has a handler and help text");
  is_int(dup, 0, "no key is bound twice in one context");

  /* the app on the headless backend, fed through the model */
  tui_backend *b = tui_headless_new(100, 30);
  tui_options o = { .datadir = src };
  dg_buf msgs = {0};
  tui_app *a = tui_app_new(b, &o, &msgs);
  is_str(msgs.s ? msgs.s : "", "", "the default theme and query load cleanly");
  char *path = dg_printf("%s/t/tui/data/bmm.lua", src);
  ok(tui_app_open(a, path), "open a problem spec");
  free(path);
  is_int(a->model.tensors.n, 1, "one output tensor");
  tui_tensor *t = &a->model.tensors.v[0];
  ok(t->ndim == 3 && t->shape[0] == 3 && t->shape[1] == 17 && t->shape[2] == 20, "c is 3x17x20");

  int64_t i00[3] = { 0, 0, 0 }, i01[3] = { 0, 0, 1 }, i02[3] = { 0, 0, 2 }, i03[3] = { 0, 0, 3 },
          i04[3] = { 0, 0, 4 }, i10[3] = { 0, 1, 0 }, i11[3] = { 0, 1, 1 }, bad[3] = { 5, 0, 0 };
  tui_tensor_set_state(t, i00, TUI_CELL_EQUIVALENT);
  tui_tensor_set_state(t, i01, TUI_CELL_BUG);
  tui_tensor_set_state(t, i02, TUI_CELL_UNKNOWN);
  tui_tensor_set_state(t, i03, TUI_CELL_FAULT);
  tui_tensor_set_state(t, bad, TUI_CELL_BUG);          /* out of range: ignored */
  tui_tensor_set_heat(t, i10, 0.0);
  tui_tensor_set_heat(t, i11, 0.9);
  is_int(tui_tensor_state(t, i01), TUI_CELL_BUG, "state reads back");
  is_int(tui_tensor_state(t, i04), TUI_CELL_UNCHECKED, "unset cells are unchecked");
  ok(tui_tensor_heat(t, i11) > 0.89 && tui_tensor_heat(t, i04) < 0, "heat reads back");
  uint32_t fed[] = { 11, 9, 10 };
  tui_model_mark_fed(&a->model, fed, 3);
  tui_model_mark_fault(&a->model, 11, "race with line 11 (threads 0 and 16)");
  tui_model_set_result(&a->model, "verdict: bug\nwitness: a[0][0][0] = 1.5\nkernel 3.0 vs reference 4.5");
  ok(tui_model_is_fed(&a->model, 10) && !tui_model_is_fed(&a->model, 8), "fed lines");

  tui_app_draw(a);
  int y = find_row(a, " 0   =");
  ok(y > 0, "verdict glyphs in row 0 of the slice");
  if (y > 0) {
    char *r = row(a, y);
    has_str(r, "0   =  X  ?  !  ·", "equivalent, bug, unknown, fault, unchecked");
    free(r);
    r = row(a, y + 1);
    has_str(r, "1   ·  █", "heat: none, then 0.9 (full block)");
    free(r);
  }
  y = find_row(a, "  11   c[(z * M");
  ok(y < 0, "line 11 is not drawn plainly");
  y = find_row(a, "! 11 ");
  ok(y > 0, "line 11 carries the fault mark");
  if (y > 0) {
    char *r = row(a, y);
    has_str(r, "race with line 11", "and its note");
    free(r);
  }
  ok(find_row(a, "▌ 10 ") > 0, "line 10 carries the fed mark");
  ok(find_row(a, "verdict: bug") > 0, "result pane shows the text");
  ok(find_row(a, "kernel 3.0 vs reference 4.5") > 0, "all of it");

  /* select c[0,0,1] in the picker: the bottom line names its state */
  keys(a, "<Tab>l");
  int sel;
  int64_t idx[TUI_MAX_DIMS];
  ok(tui_picker_selected(a, &sel, idx) && idx[0] == 0 && idx[1] == 0 && idx[2] == 1, "selection is c[0,0,1]");
  ok(find_row(a, "│ bug") > 0, "the selected cell's state is named");
  keys(a, "j");
  ok(find_row(a, "│ unchecked, fuzz heat 0.90") > 0, "heat of the selected cell is shown");

  /* a second output: t switches to it, the title counts them */
  int64_t zshape[2] = { 4, 5 };
  is_int(tui_model_add_tensor(&a->model, "z", 2, zshape), 1, "a second output tensor");
  int64_t badshape[2] = { 4, 0 };
  is_int(tui_model_add_tensor(&a->model, "w", 2, badshape), -1, "an empty dim is refused");
  keys(a, "t");
  ok(find_row(a, "picker  z[0,0]  of 4x5  (2/2)") > 0, "t shows the next output");
  keys(a, "t");
  ok(find_row(a, "picker  c[0,0,0]  of 3x17x20  (1/2)") > 0, "and back to the first");

  /* marks clear */
  tui_model_clear_marks(&a->model);
  tui_app_draw(a);
  ok(find_row(a, "! 11 ") < 0 && find_row(a, "▌ 10 ") < 0, "marks cleared");

  /* themes switch at run time; a missing one is reported */
  ok(tui_app_theme(a, "light", &msgs), "switch to the light theme");
  ok(!tui_app_theme(a, "nosuch", &msgs), "a missing theme fails");
  has_str(msgs.s, "theme 'nosuch' not found", "and says so");

  test_jobs(a);

  /* a check's record: selecting its element brings back its slice and fault marks */
  tui_model_clear_marks(&a->model);
  tui_check_info ci = {0};
  ci.tensor = 0, ci.flat = 5;
  ci.elem = dg_strdup("c[0,0,5]"), ci.verdict = dg_strdup("race");
  tui_slice_line fl = { 11, dg_strdup("race") }, sl = { 10, dg_strdup("bmm.cu:10: the loop") };
  dg_vec_push(&ci.faults, fl);
  dg_vec_push(&ci.slice, sl);
  tui_checks_put(a, &ci);
  int64_t at[3] = { 0, 0, 5 };
  tui_picker_select(a, 0, at);
  tui_teach_follow(a);
  ok(tui_model_is_fed(&a->model, 10) && tui_model_fault_at(&a->model, 11), "selecting a checked element marks its slice and fault");
  char *txt = tui_teach_text(a, TUI_TAB_SLICE);
  has_str(txt, "1 line fed c[0,0,5]", "the slice tab lists it");
  free(txt);
  txt = tui_teach_text(a, TUI_TAB_TERMS);
  has_str(txt, "no terms: the check of c[0,0,5] ended before both sides were built (race)", "no terms: says why");
  free(txt);
  at[2] = 6;
  tui_picker_select(a, 0, at);
  txt = tui_teach_text(a, TUI_TAB_SMT);
  has_str(txt, "c[0,0,6] has not been checked yet", "an unchecked element says so");
  free(txt);

  dg_buf_free(&msgs);
  tui_app_free(a);
  return tap_done();
}
