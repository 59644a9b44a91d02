/* gpu_src.c — the device side of a .cu file, for NVRTC.
 *
 * NVRTC compiles device code only: host functions (main, torch wrappers,
 * PYBIND11_MODULE, launchers with <<<>>>) and host headers make it fail. We
 * find top-level items in the tree-sitter CST and blank the host ones to
 * spaces, newlines kept, so NVRTC's "file(line)" is the user's line with no
 * map to maintain. Standard headers NVRTC lacks are dropped and replaced by a
 * prelude that the compiler puts before `#line 1 "file"`. */
#include "gpu.h"
#include <string.h>
#include <ctype.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_cuda(void);

#define FLOAT_MACROS \
  "#ifndef FLT_MAX\n#define FLT_MAX 3.402823466e+38F\n#endif\n" \
  "#ifndef FLT_MIN\n#define FLT_MIN 1.175494351e-38F\n#endif\n" \
  "#ifndef FLT_EPSILON\n#define FLT_EPSILON 1.192092896e-07F\n#endif\n" \
  "#ifndef DBL_MAX\n#define DBL_MAX 1.7976931348623158e+308\n#endif\n" \
  "#ifndef DBL_MIN\n#define DBL_MIN 2.2250738585072014e-308\n#endif\n" \
  "#ifndef DBL_EPSILON\n#define DBL_EPSILON 2.2204460492503131e-16\n#endif\n"
#define MATH_MACROS \
  "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n" \
  "#ifndef NAN\n#define NAN __int_as_float(0x7fffffff)\n#endif\n" \
  "#ifndef M_PI\n#define M_PI 3.14159265358979323846\n#endif\n" \
  "#ifndef M_SQRT2\n#define M_SQRT2 1.41421356237309504880\n#endif\n" \
  "#ifndef M_E\n#define M_E 2.7182818284590452354\n#endif\n" \
  "#ifndef M_LN2\n#define M_LN2 0.69314718055994530942\n#endif\n"
#define STD_ALIAS "namespace std { using namespace ::cuda::std; }\n"

/* #include <...>: matched on the path inside the brackets. Headers not
 * listed are kept, and NVRTC names a missing header at its line. */
static const struct inc_rule {
  const char *prefix;
  const char *prelude;      /* NULL: dropped without replacement */
} inc_rules[] = {
  { "torch/", NULL }, { "ATen/", NULL }, { "c10/", NULL }, { "pybind11/", NULL },
  { "THC/", NULL }, { "cuda_runtime.h", NULL }, { "cuda_runtime_api.h", NULL },
  { "cuda.h", NULL }, { "device_launch_parameters.h", NULL }, { "cublas*", NULL },
  { "curand.h", NULL }, { "cudnn*", NULL }, { "iostream", NULL }, { "vector", NULL },
  { "string", NULL }, { "cstdio", NULL }, { "stdio.h", NULL }, { "cstdlib", NULL },
  { "stdlib.h", NULL }, { "cstring", NULL }, { "string.h", NULL }, { "algorithm", NULL }, { "chrono", NULL },
  { "map", NULL }, { "unordered_map", NULL }, { "memory", NULL }, { "random", NULL },
  { "sstream", NULL }, { "fstream", NULL }, { "iomanip", NULL }, { "functional", NULL },
  { "numeric", NULL }, { "tuple", NULL }, { "stdexcept", NULL }, { "exception", NULL },
  { "time.h", NULL }, { "ctime", NULL }, { "sys/", NULL }, { "unistd.h", NULL },
  { "cstdint", "#include <cuda/std/cstdint>\n" },
  { "stdint.h", "#include <cuda/std/cstdint>\n" },
  { "cstddef", "#include <cuda/std/cstddef>\n" },
  { "stddef.h", "#include <cuda/std/cstddef>\n" },
  { "cfloat", FLOAT_MACROS }, { "float.h", FLOAT_MACROS },
  { "climits", "#include <cuda/std/climits>\n" },
  { "limits.h", "#include <cuda/std/climits>\n" },
  { "cmath", MATH_MACROS FLOAT_MACROS }, { "math.h", MATH_MACROS FLOAT_MACROS },
  { "cassert", "#include <cuda/std/cassert>\n" },
  { "assert.h", "#include <cuda/std/cassert>\n" },
  { "limits", "#include <cuda/std/limits>\n" STD_ALIAS },
  { "type_traits", "#include <cuda/std/type_traits>\n" STD_ALIAS },
  { "utility", "#include <cuda/std/utility>\n" STD_ALIAS },
  { "array", "#include <cuda/std/array>\n" STD_ALIAS },
};

/* Words in a declaration's head (before its declarator) that make it device code. */
static const char *const device_words[] = { "__global__", "__device__", "constexpr" };
static const char *const device_var_words[] = {
  "__device__", "__constant__", "__managed__", "__shared__", "const", "constexpr", "typedef",
};
/* Namespaces of host-only libraries: using-declarations and aliases naming them go. */
static const char *const host_namespaces[] = { "torch", "at", "c10", "pybind11", "py" };

typedef struct {
  const char *src;
  dg_gpu_src *out;
  dg_buf prelude;
  bool used_rule[sizeof inc_rules / sizeof inc_rules[0]];
} prep;

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

static bool has_word(const char *s, size_t n, const char *w)
{
  size_t wl = strlen(w);
  for (size_t i = 0; i + wl <= n; i++)
    if (!memcmp(s + i, w, wl) && (i == 0 || !is_ident(s[i - 1]))
        && (i + wl == n || !is_ident(s[i + wl])))
      return true;
  return false;
}

static bool has_any(const char *s, size_t n, const char *const *words, size_t nw)
{
  for (size_t i = 0; i < nw; i++)
    if (has_word(s, n, words[i])) return true;
  return false;
}

static bool names_host_namespace(const char *s, size_t n)
{
  return has_any(s, n, host_namespaces, sizeof host_namespaces / sizeof *host_namespaces);
}

static void blank(prep *p, TSNode n, const char *what)
{
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  for (uint32_t i = a; i < b; i++)
    if (p->out->text[i] != '\n') p->out->text[i] = ' ';
  dg_gpu_dropped d = { ts_node_start_point(n).row + 1, ts_node_end_point(n).row + 1,
                       dg_strdup(what) };
  if (ts_node_end_point(n).column == 0 && d.end_line > d.line) d.end_line--;
  dg_vec_push(&p->out->dropped, d);
}

/* Bytes from the node's start to the start of its declarator: specifiers,
 * CUDA qualifiers, return type. */
static void head_of(TSNode n, const char *src, const char **s, size_t *len)
{
  TSNode decl = ts_node_child_by_field_name(n, "declarator", 10);
  uint32_t a = ts_node_start_byte(n);
  uint32_t b = ts_node_is_null(decl) ? ts_node_end_byte(n) : ts_node_start_byte(decl);
  *s = src + a;
  *len = b - a;
}

/* The function_declarator under pointer/reference declarators, or null. */
static TSNode function_declarator(TSNode n)
{
  TSNode d = ts_node_child_by_field_name(n, "declarator", 10);
  while (!ts_node_is_null(d)) {
    const char *t = ts_node_type(d);
    if (!strcmp(t, "function_declarator")) return d;
    if (strcmp(t, "pointer_declarator") && strcmp(t, "reference_declarator")) break;
    TSNode inner = ts_node_child_by_field_name(d, "declarator", 10);
    if (ts_node_is_null(inner)) {   /* reference_declarator has no field name */
      uint32_t k = ts_node_named_child_count(d);
      if (!k) break;
      inner = ts_node_named_child(d, k - 1);
    }
    d = inner;
  }
  return (TSNode){0};
}

static char *func_name(TSNode fd, const char *src)
{
  TSNode id = ts_node_child_by_field_name(fd, "declarator", 10);
  if (ts_node_is_null(id)) return dg_strdup("?");
  return dg_strndup(src + ts_node_start_byte(id), ts_node_end_byte(id) - ts_node_start_byte(id));
}

/* A function (definition or prototype) or variable declaration, possibly the
 * inner item of a template_declaration `outer`. */
static void visit_decl(prep *p, TSNode n, TSNode outer)
{
  const char *h;
  size_t hl;
  head_of(n, p->src, &h, &hl);
  TSNode fd = function_declarator(n);
  if (!ts_node_is_null(fd)) {
    char *name = func_name(fd, p->src);
    if (has_any(h, hl, device_words, sizeof device_words / sizeof *device_words)) {
      if (has_word(h, hl, "__global__") && !strcmp(ts_node_type(n), "function_definition"))
        dg_vec_push(&p->out->kernels, dg_strdup(name));
    } else {
      char *what = dg_printf("host function %s", name);
      blank(p, outer, what);
      free(what);
    }
    free(name);
    return;
  }
  if (!strcmp(ts_node_type(n), "declaration")
      && !has_any(h, hl, device_var_words, sizeof device_var_words / sizeof *device_var_words)) {
    char *what = dg_printf("host variable: %.*s", (int)(hl > 40 ? 40 : hl), h);
    blank(p, outer, what);
    free(what);
  }
}

static void visit_include(prep *p, TSNode n)
{
  TSNode path = ts_node_child_by_field_name(n, "path", 4);
  if (ts_node_is_null(path)) return;
  const char *s = p->src + ts_node_start_byte(path);
  size_t len = ts_node_end_byte(path) - ts_node_start_byte(path);
  if (len < 2) return;
  if (s[0] == '"') {
    dg_vec_push(&p->out->local_includes, dg_strndup(s + 1, len - 2));
    return;
  }
  for (size_t i = 0; i < sizeof inc_rules / sizeof *inc_rules; i++) {
    /* "dir/" and "name*" match by prefix, anything else the whole name */
    size_t pl = strlen(inc_rules[i].prefix);
    char last = inc_rules[i].prefix[pl - 1];
    if (last == '*') pl--;
    if (len - 2 < pl || memcmp(s + 1, inc_rules[i].prefix, pl)) continue;
    if (last != '*' && last != '/' && len - 2 != pl) continue;
    if (inc_rules[i].prelude && !p->used_rule[i]) {
      dg_buf_puts(&p->prelude, inc_rules[i].prelude);
      p->used_rule[i] = true;
    }
    char *what = dg_printf("#include %.*s", (int)len, s);
    blank(p, n, what);
    free(what);
    return;
  }
}

static void visit_items(prep *p, TSNode parent);

/* Statements and unknown text at the top level: host code that tree-sitter
 * did not understand (macro calls like TORCH_LIBRARY(...)), unless it
 * mentions device code, which we keep for NVRTC to judge. */
static void visit_stray(prep *p, TSNode n)
{
  const char *s = p->src + ts_node_start_byte(n);
  size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
  static const char *const dev[] = { "__global__", "__device__", "__constant__", "__shared__" };
  if (has_any(s, len, dev, sizeof dev / sizeof *dev)) return;
  blank(p, n, "host code");
}

static void visit_item(prep *p, TSNode n)
{
  const char *t = ts_node_type(n);
  const char *s = p->src + ts_node_start_byte(n);
  size_t len = ts_node_end_byte(n) - ts_node_start_byte(n);
  if (!strcmp(t, "preproc_include")) {
    visit_include(p, n);
  } else if (!strcmp(t, "function_definition") || !strcmp(t, "declaration")) {
    visit_decl(p, n, n);
  } else if (!strcmp(t, "template_declaration")) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode c = ts_node_named_child(n, i);
      const char *ct = ts_node_type(c);
      if (!strcmp(ct, "function_definition") || !strcmp(ct, "declaration")) {
        visit_decl(p, c, n);
        break;
      }
    }
  } else if (!strcmp(t, "namespace_definition")) {
    TSNode name = ts_node_child_by_field_name(n, "name", 4);
    if (!ts_node_is_null(name)
        && names_host_namespace(p->src + ts_node_start_byte(name),
                                ts_node_end_byte(name) - ts_node_start_byte(name)))
      blank(p, n, "host namespace");
    else
      visit_items(p, ts_node_child_by_field_name(n, "body", 4));
  } else if (!strcmp(t, "linkage_specification")) {
    TSNode body = ts_node_child_by_field_name(n, "body", 4);
    if (!ts_node_is_null(body) && !strcmp(ts_node_type(body), "declaration_list"))
      visit_items(p, body);
    else if (!ts_node_is_null(body))
      visit_item(p, body);
  } else if (!strncmp(t, "preproc_if", 10) || !strcmp(t, "preproc_else")
             || !strncmp(t, "preproc_elif", 12)) {
    visit_items(p, n);
  } else if (!strcmp(t, "using_declaration") || !strcmp(t, "namespace_alias_definition")
             || !strcmp(t, "alias_declaration")) {
    if (names_host_namespace(s, len)) blank(p, n, "host using-declaration");
  } else if (!strcmp(t, "expression_statement") || !strcmp(t, "ERROR")) {
    visit_stray(p, n);
  }
  /* everything else (macros, structs, typedefs, static_assert, comments) stays */
}

static void visit_items(prep *p, TSNode parent)
{
  if (ts_node_is_null(parent)) return;
  uint32_t k = ts_node_named_child_count(parent);
  for (uint32_t i = 0; i < k; i++) visit_item(p, ts_node_named_child(parent, i));
}

void dg_gpu_src_prepare(const char *text, size_t len, dg_gpu_src *out)
{
  memset(out, 0, sizeof *out);
  out->text = dg_strndup(text, len);
  out->len = len;
  prep p = { .src = text, .out = out };
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_cuda());
  TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)len);
  if (tree) {
    visit_items(&p, ts_tree_root_node(tree));
    ts_tree_delete(tree);
  }
  ts_parser_delete(parser);
  out->prelude = p.prelude.s ? dg_buf_take(&p.prelude) : dg_strdup("");
}

void dg_gpu_src_free(dg_gpu_src *s)
{
  free(s->text);
  free(s->prelude);
  for (size_t i = 0; i < s->dropped.n; i++) free(s->dropped.v[i].what);
  for (size_t i = 0; i < s->kernels.n; i++) free(s->kernels.v[i]);
  for (size_t i = 0; i < s->local_includes.n; i++) free(s->local_includes.v[i]);
  dg_vec_free(&s->dropped);
  dg_vec_free(&s->kernels);
  dg_vec_free(&s->local_includes);
  memset(s, 0, sizeof *s);
}
