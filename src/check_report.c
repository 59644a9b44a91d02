/* check_report.c — a verdict as JSON (one line, for --json and the journal),
 * the append-only journal <problem dir>/.dirigo/journal.jsonl, and SARIF
 * results at the kernel's source lines. */
#include "check.h"
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void json_num(dg_buf *b, double v)
{
  if (isfinite(v)) dg_buf_printf(b, "%.17g", v);
  else dg_buf_puts(b, "null");
}

static void json_span(dg_buf *b, const dg_srcmgr *sm, dg_span s)
{
  dg_buf_puts(b, "{\"file\":");
  dg_buf_json_str(b, s.file ? dg_srcmgr_path(sm, s.file) : "");
  dg_buf_printf(b, ",\"line\":%u,\"col\":%u}", s.line, s.col);
}

void check_result_json(dg_buf *b, const dg_problem *p, const emu_kernels *k, const check_result *r,
                       const char *witness_path, bool full)
{
  dg_buf el = {0};
  if (r->tensor >= 0 && r->tensor < (int)p->tensors.n) check_format_elem(&el, p, r->tensor, r->index, r->nidx);
  dg_buf_puts(b, "{\"problem\":");
  dg_buf_json_str(b, p->spec_path ? p->spec_path : "");
  dg_buf_puts(b, ",\"element\":");
  dg_buf_json_str(b, el.s ? el.s : "");
  dg_buf_puts(b, ",\"index\":[");
  for (int i = 0; i < r->nidx; i++) dg_buf_printf(b, "%s%lld", i ? "," : "", (long long)r->index[i]);
  dg_buf_puts(b, "],\"verdict\":");
  dg_buf_json_str(b, check_verdict_name(r->verdict));
  dg_buf_puts(b, ",\"reason\":");
  dg_buf_json_str(b, r->reason ? r->reason : "");
  if (r->have_values) {
    dg_buf_puts(b, ",\"kernel_value\":");
    json_num(b, r->kernel_value);
    dg_buf_puts(b, ",\"reference_value\":");
    json_num(b, r->ref_value);
  }
  if (r->witness_text) {
    dg_buf_puts(b, ",\"witness_inputs\":");
    dg_buf_json_str(b, r->witness_text);
  }
  if (r->gpu) {
    static const char *const gres[] = { "could not run", "", "reproduces", "agrees with the reference" };
    dg_buf_puts(b, ",\"gpu\":{\"result\":");
    dg_buf_json_str(b, gres[r->gpu + 1]);
    if (r->gpu > 0) {
      dg_buf_puts(b, ",\"kernel_value\":");
      json_num(b, r->gpu_value);
    }
    dg_buf_puts(b, ",\"note\":");
    dg_buf_json_str(b, r->gpu_note ? r->gpu_note : "");
    dg_buf_putc(b, '}');
  }
  if (witness_path) {
    dg_buf_puts(b, ",\"witness\":");
    dg_buf_json_str(b, witness_path);
  }
  if (r->have_event) {
    dg_buf_puts(b, ",\"event\":{\"kind\":");
    dg_buf_json_str(b, simt_event_name(r->event.kind));
    dg_buf_puts(b, ",\"message\":");
    dg_buf_json_str(b, r->event.msg);
    dg_buf_puts(b, ",\"at\":");
    json_span(b, &k->sm, r->event.span);
    if (r->event.span2.file) {
      dg_buf_puts(b, ",\"other\":");
      json_span(b, &k->sm, r->event.span2);
    }
    dg_buf_printf(b, ",\"block\":%lld,\"thread\":%lld,\"thread2\":%lld,\"offset\":%lld",
                  (long long)r->event.block, (long long)r->event.thread, (long long)r->event.thread2,
                  (long long)r->event.off);
    if (r->event.xblock)        /* a race between blocks: the other thread's block (linear and coordinates) */
      dg_buf_printf(b, ",\"block2\":%lld,\"block2_idx\":[%u,%u,%u]}", (long long)r->event.block2,
                    r->event.bidx2[0], r->event.bidx2[1], r->event.bidx2[2]);
    else dg_buf_puts(b, "}");
  }
  if (r->writer_launch >= 0)
    dg_buf_printf(b, ",\"writer\":{\"launch\":%d,\"block\":%lld,\"thread\":%lld%s}", r->writer_launch,
                  (long long)r->writer_block, (long long)r->writer_thread, r->writer_inverted ? ",\"inverted\":true" : "");
  dg_buf_puts(b, ",\"slice\":[");
  for (size_t i = 0; i < r->nslice; i++) {
    if (i) dg_buf_putc(b, ',');
    json_span(b, &k->sm, r->slice[i]);
  }
  dg_buf_printf(b, "],\"seconds\":{\"concrete\":%.4f,\"symbolic\":%.4f,\"solver\":%.4f,\"replay\":%.4f,\"total\":%.4f}",
                r->t_concrete, r->t_symbolic, r->t_solver, r->t_replay, r->t_total);
  dg_buf_printf(b, ",\"terms\":%zu,\"term_bytes\":%zu", r->nterms, r->term_bytes);
  /* the sizes it ran at (--size, --auto's huge instances): the element replays with them */
  for (size_t i = 0; r->sizes && i < r->nsizes && i < p->sizes.n; i++)
    dg_buf_printf(b, "%s\"%s\":%lld", i ? "," : ",\"sizes\":{", p->sizes.v[i].name, (long long)r->sizes[i]);
  if (r->sizes && r->nsizes && p->sizes.n) dg_buf_putc(b, '}');
  if (full) {
    dg_buf_puts(b, ",\"kernel_term\":");
    dg_buf_json_str(b, r->kernel_term ? r->kernel_term : "");
    dg_buf_puts(b, ",\"reference_term\":");
    dg_buf_json_str(b, r->ref_term ? r->ref_term : "");
    dg_buf_puts(b, ",\"smtlib\":");
    dg_buf_json_str(b, r->smtlib ? r->smtlib : "");
    check_steps_json(b, k, r);
  }
  dg_buf_putc(b, '}');
  dg_buf_free(&el);
}

char *check_state_dir(const dg_problem *p, char **err)
{
  char *dir = dg_dirname(p->spec_path ? p->spec_path : ".");
  char *st = dg_path_join(dir, ".dirigo");
  free(dir);
  if (mkdir(st, 0777) && errno != EEXIST) {
    *err = dg_printf("cannot create %s: %s", st, strerror(errno));
    free(st);
    return NULL;
  }
  return st;
}

char *check_witness_path(const dg_problem *p, const check_result *r, char **err)
{
  char *dir = check_state_dir(p, err);
  if (!dir) return NULL;
  const char *spec = p->spec_path ? p->spec_path : "problem", *base = strrchr(spec, '/');
  base = base ? base + 1 : spec;
  const char *dot = strrchr(base, '.');
  dg_buf name = {0};
  dg_buf_printf(&name, "witness-%.*s-%s", (int)(dot && dot != base ? dot - base : (ptrdiff_t)strlen(base)), base,
                p->tensors.v[r->tensor].name);
  for (int i = 0; i < r->nidx; i++) dg_buf_printf(&name, "-%lld", (long long)r->index[i]);
  dg_buf_puts(&name, ".json");
  char *path = dg_path_join(dir, name.s);
  dg_buf_free(&name);
  free(dir);
  return path;
}

bool check_journal_append(const dg_problem *p, const char *json, char **err)
{
  char *dir = check_state_dir(p, err);
  if (!dir) return false;
  char *path = dg_path_join(dir, "journal.jsonl");
  free(dir);
  FILE *f = fopen(path, "a");
  if (!f) {
    *err = dg_printf("cannot append to %s: %s", path, strerror(errno));
    free(path);
    return false;
  }
  /* one write per verdict, flushed and synced: a killed run loses nothing before it */
  bool ok = fprintf(f, "%s\n", json) > 0 && fflush(f) == 0;
  if (ok) fsync(fileno(f));
  if (fclose(f) != 0) ok = false;
  if (!ok) *err = dg_printf("cannot write %s", path);
  free(path);
  return ok;
}

/* ---- SARIF 2.1.0 ---------------------------------------------------------------------- */
static dg_span result_span(const check_result *r)
{
  if (r->have_event && r->event.span.file) return r->event.span;
  if (r->nslice) return r->slice[r->nslice - 1];
  return (dg_span){0};
}

void check_sarif(dg_buf *b, const dg_problem *p, const emu_kernels *k, const check_result *rs, size_t n)
{
  dg_buf_puts(b, "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
                 "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"dirigo\",\"informationUri\":\"https://example.invalid/dirigo\",\"rules\":[");
  for (int v = 0; v < CHECK__COUNT; v++) {
    if (v) dg_buf_putc(b, ',');
    dg_buf_puts(b, "{\"id\":");
    dg_buf_json_str(b, check_verdict_name((check_verdict)v));
    dg_buf_putc(b, '}');
  }
  dg_buf_puts(b, "]}},\"results\":[");
  bool first = true;
  for (size_t i = 0; i < n; i++) {
    const check_result *r = &rs[i];
    if (r->verdict == CHECK_EQUIVALENT || r->verdict == CHECK_UNCHECKED) continue;
    dg_buf el = {0};
    check_format_elem(&el, p, r->tensor, r->index, r->nidx);
    if (!first) dg_buf_putc(b, ',');
    first = false;
    dg_buf_puts(b, "{\"ruleId\":");
    dg_buf_json_str(b, check_verdict_name(r->verdict));
    dg_buf_printf(b, ",\"level\":\"%s\",\"message\":{\"text\":",
                  check_verdict_is_finding(r->verdict) ? "error" : r->verdict == CHECK_UNKNOWN ? "note" : "warning");
    char *msg = dg_printf("%s: %s", el.s, r->reason ? r->reason : check_verdict_name(r->verdict));
    dg_buf_json_str(b, msg);
    free(msg);
    dg_buf_puts(b, "}");
    dg_span s = result_span(r);
    if (s.file) {
      dg_buf_puts(b, ",\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
      dg_buf_json_str(b, dg_srcmgr_path(&k->sm, s.file));
      dg_buf_printf(b, "},\"region\":{\"startLine\":%u,\"startColumn\":%u}}}]", s.line, s.col ? s.col : 1);
    }
    dg_buf_putc(b, '}');
    dg_buf_free(&el);
  }
  dg_buf_puts(b, "]}]}");
}
