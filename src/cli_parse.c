/* cli_parse.c — `dirigo parse FILE.cu [--ir] [--json] [-D NAME=VAL] [-T INST]`:
 * kernels, device functions, templates and host launches of a file, the IR,
 * and diagnostics on stderr. Exit 0 without errors, 2 with errors or
 * unsupported constructs, or when the file cannot be read. */
#include "cli.h"
#include "fe.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *path;
  bool ir, json;
  DG_VEC(pp_define) defs;
  DG_VEC(const char *) insts;
} parse_opts;

static void json_str(dg_buf *b, const char *s)
{
  dg_buf_putc(b, '"');
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { dg_buf_putc(b, '\\'); dg_buf_putc(b, (char)c); }
    else if (c == '\n') dg_buf_puts(b, "\\n");
    else if (c == '\t') dg_buf_puts(b, "\\t");
    else if (c < 0x20) dg_buf_printf(b, "\\u%04x", c);
    else dg_buf_putc(b, (char)c);
  }
  dg_buf_putc(b, '"');
}

static void text_listing(dg_buf *b, const dg_module *m, const parse_opts *o)
{
  dg_buf_printf(b, "%s:\n", o->path);
  for (size_t i = 0; i < m->funcs.n; i++) {
    const dg_func *f = m->funcs.v[i];
    dg_buf_printf(b, "  %-8s %s(", f->is_kernel ? "kernel" : "device", f->name);
    for (int j = 0; j < f->nparams; j++)
      dg_buf_printf(b, "%s%s%s %s", j ? ", " : "", f->params[j]->by_ref ? "ref " : "", ir_type_name(f->params[j]->type), f->params[j]->name);
    dg_buf_printf(b, ")%s%s  line %u\n", f->ret->kind == DG_TY_VOID ? "" : " -> ", f->ret->kind == DG_TY_VOID ? "" : ir_type_name(f->ret), f->span.line);
  }
  for (size_t i = 0; i < m->templates.n; i++)
    dg_buf_printf(b, "  %s\n", fe_template_decl(m, i));
  for (size_t i = 0; i < m->globals.n; i++)
    dg_buf_printf(b, "  %-8s %s %s\n", "global", ir_type_name(m->globals.v[i]->type), m->globals.v[i]->name);
  for (size_t i = 0; i < m->launches.n; i++)
    dg_buf_printf(b, "  %-8s %s  line %u\n", "launch", m->launches.v[i].text, m->launches.v[i].span.line);
  if (o->ir) {
    for (size_t i = 0; i < m->structs.n; i++) {
      dg_buf_putc(b, '\n');
      ir_print_struct(b, m->structs.v[i]);
    }
    for (size_t i = 0; i < m->funcs.n; i++) {
      dg_buf_putc(b, '\n');
      ir_print_func(b, m, m->funcs.v[i]);
    }
  }
}

static void json_listing(dg_buf *b, const dg_module *m, const dg_srcmgr *sm, const dg_diags *d, const parse_opts *o)
{
  dg_buf_puts(b, "{\"file\": ");
  json_str(b, o->path);
  dg_buf_puts(b, ",\n \"functions\": [");
  for (size_t i = 0; m && i < m->funcs.n; i++) {
    const dg_func *f = m->funcs.v[i];
    dg_buf_puts(b, i ? ",\n  {" : "\n  {");
    dg_buf_puts(b, "\"name\": "); json_str(b, f->name);
    dg_buf_puts(b, ", \"base\": "); json_str(b, f->base_name);
    dg_buf_printf(b, ", \"kind\": \"%s\", \"line\": %u, \"returns\": ", f->is_kernel ? "kernel" : "device", f->span.line);
    json_str(b, ir_type_name(f->ret));
    dg_buf_puts(b, ", \"params\": [");
    for (int j = 0; j < f->nparams; j++) {
      dg_buf_puts(b, j ? ", {\"name\": " : "{\"name\": ");
      json_str(b, f->params[j]->name);
      dg_buf_puts(b, ", \"type\": ");
      json_str(b, ir_type_name(f->params[j]->type));
      dg_buf_printf(b, ", \"by_ref\": %s}", f->params[j]->by_ref ? "true" : "false");
    }
    dg_buf_puts(b, "]");
    if (o->ir) {
      dg_buf ir = { 0 };
      ir_print_func(&ir, m, f);
      dg_buf_puts(b, ", \"ir\": ");
      json_str(b, ir.s);
      dg_buf_free(&ir);
    }
    dg_buf_puts(b, "}");
  }
  dg_buf_puts(b, "],\n \"templates\": [");
  for (size_t i = 0; m && i < m->templates.n; i++) {
    dg_buf_puts(b, i ? ", {\"name\": " : "{\"name\": ");
    json_str(b, m->templates.v[i]);
    dg_buf_puts(b, ", \"decl\": ");
    json_str(b, fe_template_decl(m, i));
    dg_buf_puts(b, "}");
  }
  dg_buf_puts(b, "],\n \"launches\": [");
  for (size_t i = 0; m && i < m->launches.n; i++) {
    dg_buf_puts(b, i ? ", {\"kernel\": " : "{\"kernel\": ");
    json_str(b, m->launches.v[i].kernel);
    dg_buf_puts(b, ", \"text\": ");
    json_str(b, m->launches.v[i].text);
    dg_buf_printf(b, ", \"line\": %u, \"col\": %u}", m->launches.v[i].span.line, m->launches.v[i].span.col);
  }
  dg_buf_puts(b, "],\n \"diagnostics\": [");
  for (size_t i = 0; i < d->v.n; i++) {
    const dg_diag *g = &d->v.v[i];
    dg_buf_puts(b, i ? ",\n  {\"severity\": " : "\n  {\"severity\": ");
    json_str(b, dg_severity_name(g->sev));
    dg_buf_puts(b, ", \"file\": ");
    json_str(b, g->span.file ? dg_srcmgr_path(sm, g->span.file) : o->path);
    dg_buf_printf(b, ", \"line\": %u, \"col\": %u, \"message\": ", g->span.line, g->span.col);
    json_str(b, g->msg);
    dg_buf_puts(b, "}");
  }
  dg_buf_printf(b, "],\n \"errors\": %d}\n", d->nerrors);
}

static int usage(void)
{
  fprintf(stderr, "usage: dirigo parse FILE.cu [--ir] [--json] [-D NAME[=VAL]] [-T 'kernel<args>']\n");
  return DG_EXIT_USAGE;
}

int cli_parse(int argc, char **argv)
{
  parse_opts o = { 0 };
  int rc = DG_EXIT_OK;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--ir")) o.ir = true;
    else if (!strcmp(a, "--json")) o.json = true;
    else if (!strncmp(a, "-D", 2) || !strncmp(a, "-T", 2) || !strcmp(a, "--instantiate")) {
      const char *v = a[0] == '-' && a[1] != '-' && a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!v) { dg_vec_free(&o.defs); dg_vec_free(&o.insts); return usage(); }
      if (a[1] == 'D') {
        const char *eq = strchr(v, '=');
        pp_define d = { eq ? NULL : v, eq ? eq + 1 : NULL };
        if (eq) d.name = v;   /* name ends at '=': copied below */
        dg_vec_push(&o.defs, d);
      } else {
        dg_vec_push(&o.insts, v);
      }
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "dirigo parse: unknown option '%s'\n", a);
      dg_vec_free(&o.defs); dg_vec_free(&o.insts);
      return usage();
    } else if (!o.path) o.path = a;
    else { dg_vec_free(&o.defs); dg_vec_free(&o.insts); return usage(); }
  }
  if (!o.path) { dg_vec_free(&o.defs); dg_vec_free(&o.insts); return usage(); }
  size_t pl = strlen(o.path);
  if (pl > 4 && !strcmp(o.path + pl - 4, ".lua")) {   /* a problem spec: name its kernel */
    char *text = dg_read_file(o.path, NULL), *src = NULL;
    const char *q = text ? strstr(text, "source") : NULL;
    if (q) q = strpbrk(q, "\"'\n");
    if (q && *q != '\n') {
      const char *e = strchr(q + 1, *q);
      if (e) src = dg_strndup(q + 1, (size_t)(e - q - 1));
    }
    fprintf(stderr, "dirigo parse: %s is a problem spec (Lua): parse takes a kernel file (.cu)%s%s\n", o.path,
            src ? ", here " : "", src ? src : "");
    free(src);
    free(text);
    dg_vec_free(&o.defs); dg_vec_free(&o.insts);
    return DG_EXIT_USAGE;
  }
  /* -D NAME=VAL: split the name off (pp_define wants separate strings) */
  DG_VEC(char *) names = { 0 };
  for (size_t i = 0; i < o.defs.n; i++) {
    if (!o.defs.v[i].value) continue;
    const char *eq = strchr(o.defs.v[i].name, '=');
    char *n = dg_strndup(o.defs.v[i].name, (size_t)(eq - o.defs.v[i].name));
    dg_vec_push(&names, n);
    o.defs.v[i].name = n;
  }
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  dg_diags d = { 0 };
  fe_options fo = { o.defs.v, (int)o.defs.n, o.insts.v, (int)o.insts.n, true };
  dg_module *m = fe_load(&sm, o.path, &fo, &d);
  dg_buf out = { 0 };
  if (o.json) json_listing(&out, m, &sm, &d, &o);
  else if (m) text_listing(&out, m, &o);
  if (out.s) fputs(out.s, stdout);
  dg_buf_free(&out);
  if (!o.json || !m) {
    dg_buf err = { 0 };
    for (size_t i = 0; i < d.v.n; i++) {
      if (!d.v.v[i].span.file) dg_buf_puts(&err, "dirigo parse: ");
      dg_diag_format(&err, &sm, &d.v.v[i]);
      dg_buf_putc(&err, '\n');
    }
    if (err.s) fputs(err.s, stderr);
    dg_buf_free(&err);
  }
  if (!m || d.nerrors) rc = DG_EXIT_USAGE;
  fe_module_free(m);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  for (size_t i = 0; i < names.n; i++) free(names.v[i]);
  dg_vec_free(&names);
  dg_vec_free(&o.defs);
  dg_vec_free(&o.insts);
  return rc;
}
