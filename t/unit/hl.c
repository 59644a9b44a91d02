/* hl.c — tests for highlighting: our highlights.scm on CUDA, capture
 * precedence, predicates, query errors, kernels and syntax errors. */
#include "hl.h"
#include "theme.h"
#include "../tap.h"

static const char *src =
  "#define BLOCK 256\n"                                            /* 1 */
  "// a comment\n"                                                 /* 2 */
  "__global__ void scale(float *__restrict__ y, const float *x, int n)\n"  /* 3 */
  "{\n"                                                            /* 4 */
  "  __shared__ float s[32];\n"                                    /* 5 */
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"             /* 6 */
  "  if (i < n) y[i] = expf(x[i]) * 2.0f;\n"                       /* 7 */
  "  __syncthreads();\n"                                           /* 8 */
  "}\n"                                                            /* 9 */
  "__device__ float helper(float a) { return a; }\n"               /* 10 */
  "template <int B> __global__ void tiled(float *y) { }\n"         /* 11 */
  "int main() { scale<<<1, BLOCK>>>(0, 0, 3); }\n";                /* 12 */

/* Capture name at the first occurrence of `what` (+ off bytes). */
static const char *cap_at(const dg_hl_query *q, const dg_hl_doc *d, const char *what, int off)
{
  const char *p = strstr(d->text, what);
  if (!p) return "(text not found)";
  uint16_t c = d->cap[(p - d->text) + off];
  return c ? dg_hl_query_capture(q, c - 1u) : "(none)";
}

int main(void)
{
  const char *dir = getenv("DG_SRCDIR");
  char *path = dg_printf("%s/grammars/highlights.scm", dir ? dir : ".");
  dg_diags d = {0};
  dg_hl_query *q = dg_hl_query_load(path, &d);
  ok(q != NULL, "our highlights.scm compiles");
  if (!q) {
    for (size_t i = 0; i < d.v.n; i++) printf("# %s\n", d.v.v[i].msg);
    free(path);
    return tap_done();
  }
  dg_hl_doc *doc = dg_hl_doc_new(q, src, strlen(src));
  is_str(cap_at(q, doc, "#define", 0), "keyword.directive", "#define");
  is_str(cap_at(q, doc, "BLOCK", 0), "constant", "macro name in capitals");
  is_str(cap_at(q, doc, "// a comment", 3), "comment", "comment");
  is_str(cap_at(q, doc, "__global__", 0), "keyword.cuda", "__global__");
  is_str(cap_at(q, doc, "__restrict__", 0), "keyword.cuda", "__restrict__");
  is_str(cap_at(q, doc, "__shared__", 0), "keyword.cuda", "__shared__ beats type_qualifier (first pattern)");
  is_str(cap_at(q, doc, "scale(", 0), "function.definition", "kernel name");
  is_str(cap_at(q, doc, "float *", 0), "type.builtin", "float");
  is_str(cap_at(q, doc, "blockIdx", 0), "variable.builtin", "blockIdx");
  is_str(cap_at(q, doc, "threadIdx", 0), "variable.builtin", "threadIdx");
  is_str(cap_at(q, doc, "blockIdx.x", 9), "property", ".x is a field");
  is_str(cap_at(q, doc, "expf", 0), "function.builtin", "expf via #any-of?");
  is_str(cap_at(q, doc, "__syncthreads", 0), "function.builtin", "__syncthreads via #match?");
  is_str(cap_at(q, doc, "2.0f", 0), "number", "number");
  is_str(cap_at(q, doc, "if (", 0), "keyword.conditional", "if");
  is_str(cap_at(q, doc, "return", 0), "keyword.return", "return");
  is_str(cap_at(q, doc, "scale<<<", 0), "function.call", "launched kernel");
  is_str(cap_at(q, doc, "<<<", 0), "punctuation.launch", "<<<");
  is_str(cap_at(q, doc, "  int i", 0), "(none)", "whitespace has no capture");
  is_str(cap_at(q, doc, "int i", 4), "(none)", "a plain local has no capture");

  is_int(doc->kernels.n, 2, "two __global__ kernels (not the __device__ helper)");
  if (doc->kernels.n == 2) {
    is_str(doc->kernels.v[0].name, "scale", "first kernel");
    is_int(doc->kernels.v[0].line, 3, "at line 3");
    is_int(doc->kernels.v[0].col, 17, "column of its name");
    is_str(doc->kernels.v[1].name, "tiled", "templated kernel");
    is_int(doc->kernels.v[1].line, 11, "at line 11");
  }
  is_int(doc->errors.n, 0, "no syntax errors");
  dg_hl_doc_free(doc);

  const char *bad = "__global__ void k(int *p) {\n  int x = ;\n}\n";
  doc = dg_hl_doc_new(q, bad, strlen(bad));
  ok(doc->errors.n >= 1 && doc->errors.v[0].line == 2, "syntax error found on line 2");
  dg_hl_doc_free(doc);

  doc = dg_hl_doc_new(NULL, src, strlen(src));
  is_int(doc->kernels.n, 2, "kernels without a query");
  ok(doc->cap[0] == 0, "no query, no captures");
  dg_hl_doc_free(doc);

  doc = dg_hl_doc_new(q, "", 0);
  is_int(doc->kernels.n, 0, "empty file");
  dg_hl_doc_free(doc);

  /* the theme side: capture names resolve by longest dotted prefix */
  dg_theme t;
  dg_theme_init(&t);
  dg_theme_set(&t, "function", (dg_style){ 4, DG_COLOR_UNSET, 0 });
  dg_style st;
  ok(dg_theme_lookup(&t, "function.builtin", &st) && st.fg == 4, "function.builtin falls back to function");
  dg_theme_free(&t);
  dg_hl_query_free(q);

  /* query errors name file:line:col */
  const char *badq = "(identifier) @x\n(no_such_node) @y\n";
  ok(dg_hl_query_new("q.scm", badq, strlen(badq), &d) == NULL, "bad query refused");
  has_str(d.v.n ? d.v.v[d.v.n - 1].msg : "", "q.scm:2:2: unknown node type", "bad node type located");
  const char *badp = "((identifier) @x (#frob? @x \"a\"))\n";
  ok(dg_hl_query_new("p.scm", badp, strlen(badp), &d) == NULL, "unknown predicate refused");
  has_str(d.v.n ? d.v.v[d.v.n - 1].msg : "", "p.scm:1:1: bad or unsupported predicate #frob?", "named");
  /* predicates with negation */
  const char *negq = "((identifier) @v (#not-eq? @v \"x\"))\n";
  dg_hl_query *nq = dg_hl_query_new("n.scm", negq, strlen(negq), &d);
  ok(nq != NULL, "#not-eq? compiles");
  if (nq) {
    const char *t2 = "int x = y;";
    dg_hl_doc *d2 = dg_hl_doc_new(nq, t2, strlen(t2));
    ok(d2->cap[4] == 0 && d2->cap[8] != 0, "#not-eq? keeps y, drops x");
    dg_hl_doc_free(d2);
    dg_hl_query_free(nq);
  }
  dg_diags_free(&d);
  free(path);
  return tap_done();
}
