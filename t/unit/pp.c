/* pp.c — tests for the C preprocessor (src/pp*.c): macros, conditionals,
 * includes, pragmas, diagnostics, the position map and hostile inputs. */
#include "pp.h"
#include "../tap.h"
#include <unistd.h>
#include <sys/stat.h>

typedef struct {
  dg_srcmgr sm;
  pp_result r;
  dg_diags d;
  bool ok;
  char *diag;   /* all diagnostics, one per line */
  char *flat;   /* the output without any whitespace */
} R;

static char *nows(const char *s)
{
  dg_buf b = {0};
  for (; *s; s++)
    if (*s != ' ' && *s != '\n' && *s != '\t') dg_buf_putc(&b, *s);
  return dg_buf_take(&b);
}

static void go(R *x, uint32_t f, const pp_define *defs, int n)
{
  memset(&x->d, 0, sizeof x->d);
  x->ok = pp_run(&x->sm, f, defs, n, &x->r, &x->d);
  dg_buf b = {0};
  for (size_t i = 0; i < x->d.v.n; i++) {
    dg_diag_format(&b, &x->sm, &x->d.v.v[i]);
    dg_buf_putc(&b, '\n');
  }
  x->diag = dg_buf_take(&b);
  x->flat = nows(x->r.text);
}

static void src_defs(R *x, const char *src, const pp_define *defs, int n)
{
  dg_srcmgr_init(&x->sm);
  uint32_t f = dg_srcmgr_add(&x->sm, "k.cu", dg_strdup(src), strlen(src));
  go(x, f, defs, n);
}

static void src(R *x, const char *s) { src_defs(x, s, NULL, 0); }

static void done(R *x)
{
  pp_result_free(&x->r);
  dg_diags_free(&x->d);
  dg_srcmgr_free(&x->sm);
  free(x->diag);
  free(x->flat);
}

/* The output of src without whitespace, in a static buffer. */
static const char *flat(const char *s)
{
  static char out[4096];
  R x;
  src(&x, s);
  snprintf(out, sizeof out, "%s%s", x.flat, x.ok ? "" : "<ERROR>");
  done(&x);
  return out;
}

/* 1 or 0 for "#if e", -1 when it is an error. */
static int eval_if(const char *e)
{
  char *s = dg_printf("#define ONE 1\n#define F(x) (x+1)\n#if %s\nyes\n#else\nno\n#endif\n", e);
  R x;
  src(&x, s);
  int v = !x.ok ? -1 : !strcmp(x.flat, "yes") ? 1 : !strcmp(x.flat, "no") ? 0 : -2;
  done(&x);
  free(s);
  return v;
}

static dg_span span_of(R *x, const char *needle, int nth)
{
  const char *p = x->r.text;
  for (int i = 0; p && i <= nth; i++) p = strstr(i ? p + 1 : p, needle);
  if (!p) return (dg_span){ 0, 0, 0 };
  return pp_span(&x->r, (size_t)(p - x->r.text));
}

static bool span_is(dg_span s, uint32_t file, uint32_t line, uint32_t col)
{
  if (s.file == file && s.line == line && s.col == col) return true;
  printf("#   span %u:%u:%u, want %u:%u:%u\n", s.file, s.line, s.col, file, line, col);
  return false;
}

static void test_macros(void)
{
  is_str(flat("#define N 4\nint a[N];\n"), "inta[4];", "object-like macro");
  is_str(flat("#define MAX(a,b) ((a)>(b)?(a):(b))\nMAX(x, MAX(y,z))\n"),
         "((x)>(((y)>(z)?(y):(z)))?(x):(((y)>(z)?(y):(z))))", "function-like macro, nested call");
  is_str(flat("#define F(x) x\nF(\n a,\n)\n"), "F(a,)<ERROR>", "too many arguments: an error, the call is left alone");
  is_str(flat("#define A 1\n#define S(x) #x\n#define X(x) S(x)\nS(A) X(A)\n"), "\"A\"\"1\"",
         "# takes the argument unexpanded; other uses expand it first");
  is_str(flat("#define S(x) #x\nS( a  \"b\\n\"  'c' + )\n"), "\"a\\\"b\\\\n\\\"'c'+\"",
         "stringizing escapes quotes and backslashes in literals");
  is_str(flat("#define C(a,b) a##b\nC(x,1) C(,y) C(z,) C(,)|C(<,<=)\n"), "x1yz|<<=", "## pastes, empty args are placemarkers");
  is_str(flat("#define A 2\n#define C(a,b) a##b\nC(A,A)\n"), "AA", "## operands are not expanded");
  is_str(flat("#define V(f, ...) g(f, __VA_ARGS__)\nV(1,2,3) V(1)\n"), "g(1,2,3)g(1,)", "__VA_ARGS__");
  is_str(flat("#define W(f, ...) g(f, ##__VA_ARGS__)\nW(1) W(1,2)\n"), "g(1)g(1,2)", "GNU , ## __VA_ARGS__");
  is_str(flat("#define N(args...) h(args)\nN(1,2)\n"), "h(1,2)", "named variadic parameter");
  is_str(flat("#define O(f, ...) f(0 __VA_OPT__(, __VA_ARGS__))\n#define E\nO(g) O(g, 1, 2) O(g, E) O(g,)\n"),
         "g(0)g(0,1,2)g(0)g(0)", "__VA_OPT__");
  is_str(flat("#define O(x, ...) a ## __VA_OPT__(x ## 1) ## b\nO(y) O(y, 2)\n#define B(...) __VA_OPT__(\n"),
         "abay1b<ERROR>", "__VA_OPT__ next to ##, and unterminated");
  is_str(flat("#define foo foo+1\nfoo\n#define a b\n#define b a\na b\n"), "foo+1ab",
         "a macro does not expand inside itself (painted blue)");
  is_str(flat("#define f(x) x*g\n#define g(x) f(x)\nf(2)(9)\n"), "2*9*g", "rescan with the rest of the text");
  /* the example of C11 6.10.3.5 */
  is_str(flat("#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n"
              "#define z z[0]\n#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n"
              "#define p() int\n#define q(x) x\n#define r(x,y) x ## y\n"
              "f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\ng(x+(3,4)-w) | h 5) & m\n(f)^m(m);\n"
              "p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };\n"),
         "f(2*(y+1))+f(2*(f(2*(z[0]))))%f(2*(0))+t(1);f(2*(2+(3,4)-0,1))|f(2*(~5))&f(2*(0,1))^m(0,1);"
         "inti[]={1,23,4,5,};", "the C standard's macro example");
  is_str(flat("#define N 4\n#undef N\nN\n"), "N", "#undef");
  R y;
  src(&y, "#define L(k, g) k<<<g, 32>>>(y)\n#define P(a) a-\nL(f, 4); P(-x) P(1)-1;\n");
  has_str(y.r.text, "f<<<4, 32>>>(y);", "tokens adjacent in a macro body stay adjacent (<<<)");
  has_str(y.r.text, " -x- 1- -1;", "tokens from different places do not paste (- -)");
  done(&y);
  is_str(flat("#define N 4\nchar *s = \"N\"; char c = 'N';\n"), "char*s=\"N\";charc='N';",
         "string and char literals are never expanded");
  is_str(flat("#define F(x) [x]\nF\n+F (1)\n"), "F+[1]", "a function-like name without ( is left alone");
  is_str(flat("#define E(x) <x>\nE() E( )\n"), "<><>", "empty argument");
  is_str(flat("#define L __LINE__\nL\n\n__LINE__ __FILE__\n"), "24\"k.cu\"", "__LINE__ and __FILE__");
  R x;
  src(&x, "#define A 1\n#define A 2\n");
  has_str(x.diag, "k.cu:2:9: warning: \"A\" redefined", "redefinition warns");
  ok(x.ok, "a warning does not fail the run");
  done(&x);
  src(&x, "#define F(a,b) a\nF(1)\n");
  has_str(x.diag, "k.cu:2:1: error: macro \"F\" requires 2 arguments, but only 1 given", "too few arguments");
  done(&x);
  src(&x, "#define F(a) a\nF(1,\n2\n");
  has_str(x.diag, "k.cu:2:1: error: unterminated argument list invoking macro \"F\"", "unterminated call");
  done(&x);
  src(&x, "#define F(a) a\nF(1,\n#ifdef X\n2)\n#endif\n");
  has_str(x.diag, "k.cu:3:1: unsupported: a preprocessing directive inside the arguments of macro \"F\"",
          "a directive inside macro arguments");
  done(&x);
  src(&x, "#define C(a,b) a##b\nC(+,/)\n");
  has_str(x.diag, "k.cu:2:1: error: pasting \"+\" and \"/\" does not give a valid preprocessing token", "bad paste");
  done(&x);
  src(&x, "#define\n#define 3 x\n#define S(x) #y\n#define P ## a\n#define Q(a,a) a\n");
  has_str(x.diag, "k.cu:1:2: error: macro name missing", "#define without name");
  has_str(x.diag, "k.cu:2:9: error: macro names must be identifiers", "#define 3");
  has_str(x.diag, "k.cu:3:14: error: '#' is not followed by a macro parameter", "# without parameter");
  has_str(x.diag, "k.cu:4:11: error: '##' cannot appear at either end", "## at an end");
  has_str(x.diag, "k.cu:5:13: error: duplicate macro parameter \"a\"", "duplicate parameter");
  done(&x);
}

static void test_conditionals(void)
{
  is_int(eval_if("1 + 2 * 3 == 7"), 1, "#if arithmetic and precedence");
  is_int(eval_if("defined ONE && defined(F) && !defined TWO"), 1, "defined X and defined(X)");
  is_int(eval_if("UNKNOWN == 0 && !UNKNOWN2"), 1, "unknown identifiers are 0");
  is_int(eval_if("F(ONE) == 2"), 1, "macros expand in #if");
  is_int(eval_if("(1 ? 2 : 3) == 2 && (0 ? 2 : 3) == 3"), 1, "ternary");
  is_int(eval_if("(1 << 4) == 16 && (256 >> 4) == 16 && (-16 >> 2) == -4"), 1, "shifts");
  is_int(eval_if("0x1F == 31 && 017 == 15 && 0b101 == 5 && 1'000 == 1000 && 10UL == 10"), 1,
         "hex, octal, binary, separators, suffixes");
  is_int(eval_if("'a' == 97 && '\\n' == 10 && '\\x41' == 65 && '\\0' == 0 && '\\377' < 0"), 1,
         "character literals");
  is_int(eval_if("-1 > 0u && -1 < 0"), 1, "unsigned arithmetic");
  is_int(eval_if("(7 % 3) == 1 && (7 / 2) == 3 && (-7 / 2) == -3 && (6 & 3) == 2 && (6 | 1) == 7 && (6 ^ 3) == 5"), 1,
         "division, remainder, bit operators");
  is_int(eval_if("0 && 1 / 0"), 0, "&& short-circuits a division by zero");
  is_int(eval_if("1 || 1 / 0"), 1, "|| short-circuits");
  is_int(eval_if("1 ? 1 : 1 / 0"), 1, "?: does not evaluate the other branch");
  is_int(eval_if("1 / 0"), -1, "division by zero is an error");
  is_int(eval_if("(1"), -1, "missing )");
  is_int(eval_if("1 2"), -1, "missing operator");
  is_int(eval_if("\"s\""), -1, "a string is not valid");
  is_int(eval_if("1.5"), -1, "floating constant is an error");
  is_int(eval_if("~0 == -1 && !!3 == 1 && -(-2) == 2 && +1"), 1, "unary operators");
  is_int(eval_if("true && !false"), 1, "true and false");
  is_int(eval_if("__CUDA_ARCH__ == 900 && __cplusplus == 201703L && defined __CUDACC__ && defined __NVCC__ && CUDART_VERSION >= 12000"),
         1, "predefined macros");
  is_int(eval_if("__has_include(<cuda_fp16.h>) && !__has_include(\"nope.h\") && !__has_builtin(__x)"), 1,
         "__has_include and __has_builtin");
  is_str(flat("#if 0\na\n#elif 0\nb\n#elif 1\nc\n#if 0\nd\n#else\ne\n#endif\n#elif 1\nf\n#else\ng\n#endif\n"),
         "ce", "#if/#elif/#else nesting");
  is_str(flat("#define X\n#ifdef X\na\n#endif\n#ifndef X\nb\n#else\nc\n#endif\n#ifdef Y\nd\n#endif\n"),
         "ac", "#ifdef and #ifndef");
  is_str(flat("#if 0\n#if garbage (((\n#error no\n#endif\n'unterminated\n#else\nyes\n#endif\n"), "yes",
         "skipped groups are not evaluated");
  R x;
  src(&x, "#if 1\nx\n");
  has_str(x.diag, "k.cu:1:1: error: unterminated #if", "unterminated #if");
  ok(!x.ok, "unterminated #if fails the run");
  done(&x);
  src(&x, "#else\n#endif\n#elif 1\n#if 1\n#else\n#else\n#endif\n#if\n#endif\n");
  has_str(x.diag, "k.cu:1:2: error: #else without #if", "#else without #if");
  has_str(x.diag, "k.cu:2:2: error: #endif without #if", "#endif without #if");
  has_str(x.diag, "k.cu:3:2: error: #elif without #if", "#elif without #if");
  has_str(x.diag, "k.cu:6:2: error: #else after #else", "#else after #else");
  has_str(x.diag, "k.cu:8:2: error: #if with no expression", "#if with no expression");
  done(&x);
  src(&x, "#if 1 +\n#endif\n");
  has_str(x.diag, "k.cu:1:8: error: missing operand in preprocessor expression", "diagnostic names the column");
  done(&x);
}

static void test_directives(void)
{
  R x;
  src(&x, "a\n#error too \"big\"  here\nb\n#warning careful\n#bogus\n");
  has_str(x.diag, "k.cu:2:1: error: #error too \"big\" here", "#error");
  has_str(x.diag, "k.cu:4:1: warning: #warning careful", "#warning");
  has_str(x.diag, "k.cu:5:2: error: invalid preprocessing directive #bogus", "unknown directive");
  ok(!x.ok, "#error fails the run");
  done(&x);
  is_str(flat("#line 100\n__LINE__\n#line 7 \"z.cu\"\n__LINE__ __FILE__\n#\n"), "1007\"z.cu\"", "#line and the null directive");
  src(&x, "__global__ void k() {\n#pragma unroll\n  for (;;) {}\n  #  pragma unroll 4 // four\n}\n");
  is_str(x.r.text, "__global__ void k() {\n#pragma unroll\n  for (;;) {}\n  #  pragma unroll 4\n}\n",
         "#pragma lines stay in the output where they stand");
  is_int(x.r.pragmas.n, 2, "pragmas recorded");
  if (x.r.pragmas.n == 2) {
    is_str(x.r.pragmas.v[1].line_text, "#pragma unroll 4", "pragma text");
    ok(span_is(x.r.pragmas.v[1].span, 1, 4, 3), "pragma span");
    is_int(x.r.pragmas.v[1].out_off, strstr(x.r.text, "#  pragma") - x.r.text, "pragma out_off");
  }
  done(&x);
  src(&x, "#define U 8\n#define UNROLL _Pragma(\"unroll 2\")\nx;\n#pragma unroll U\nUNROLL for(;;);\n");
  has_str(x.r.text, "\n#pragma unroll 8\n", "#pragma unroll expands its argument");
  has_str(x.r.text, "\n#pragma unroll 2\n", "_Pragma becomes a pragma line");
  is_int(x.r.pragmas.n, 2, "both pragmas recorded");
  if (x.r.pragmas.n == 2) {
    is_str(x.r.pragmas.v[1].line_text, "#pragma unroll 2", "_Pragma text");
    ok(span_is(x.r.pragmas.v[1].span, 1, 5, 1), "_Pragma maps to its use site");
  }
  ok(span_is(span_of(&x, "for", 0), 1, 5, 8), "code after _Pragma keeps its position");
  done(&x);
}

static void test_text_and_spans(void)
{
  R x;
  src(&x, "int a; /* one\n two */ int b; // c\nint \\\nc;\n#define M(v) \\\n  (v+1)\nint d = M(2); int e;\n");
  is_str(x.r.text, "int a;\n        int b;\nint\nc;\n\n\nint d = (2+1); int e;\n",
         "comments and splices go, lines stay");
  ok(span_is(span_of(&x, "b", 0), 1, 2, 13), "after a block comment");
  ok(span_is(span_of(&x, "c", 0), 1, 4, 1), "after a line splice");
  ok(span_is(span_of(&x, "(2+1)", 0), 1, 7, 9), "a macro expansion maps to its use site");
  ok(span_is(span_of(&x, "1)", 0), 1, 7, 9), "every byte of it");
  ok(span_is(span_of(&x, "e", 0), 1, 7, 19), "text after an expansion maps 1:1 again");
  ok(span_is(pp_span(&x.r, 0), 1, 1, 1), "the first byte");
  done(&x);
  src(&x, "#define L(x) x + \\\n  1\nint a = L(\n 2);\nint b;\n");
  ok(span_is(span_of(&x, "int b", 0), 1, 5, 1), "after a call over two lines");
  is_str(x.r.text, "\n\nint a = 2 + 1\n   ;\nint b;\n", "line structure after a multi-line call");
  done(&x);
  src(&x, "#define A(x) B(x) * 2\n#define B(x) (x)\nint q = A(3);\n");
  ok(span_is(span_of(&x, "(3)", 0), 1, 3, 9), "nested expansion maps to the outermost use site");
  done(&x);
  src(&x, "\"unterminated\nint a;\n");
  has_str(x.diag, "k.cu:1:1: error: missing terminating \" character", "unterminated string");
  ok(span_is(span_of(&x, "int", 0), 1, 2, 1), "the next line is still read");
  done(&x);
  is_str(flat("#define A 1 \\\r\n + 2\r\nA\r\n"), "1+2", "CRLF line ends and splices");
  is_str(flat(""), "", "an empty file");
  is_str(flat("\\"), "\\", "a lone backslash at the end");
  src(&x, "int a;\n/* never closed\nint b;\n");
  has_str(x.diag, "k.cu:2:1: error: unterminated comment", "unterminated comment");
  done(&x);
  src(&x, "const char *r = R\"x(a \" // b\nc)x\"; int z;\n");
  ok(x.ok, "raw string literal");
  ok(span_is(span_of(&x, "z", 0), 1, 2, 11), "raw string over two lines keeps positions");
  done(&x);
}

static void test_defines(void)
{
  pp_define defs[] = { { "WARPSIZE", "32" }, { "FLAG", NULL }, { "__CUDA_ARCH__", "800" }, { "SQ(x)", "((x)*(x))" },
                       { "BLK=128", NULL } };
  R x;
  src_defs(&x, "WARPSIZE FLAG __CUDA_ARCH__ SQ(2) BLK\n", defs, 5);
  is_str(x.flat, "321800((2)*(2))128", "command-line defines (and overriding predefined ones)");
  ok(x.ok && x.d.v.n == 0, "no diagnostics");
  done(&x);
  src_defs(&x, "#ifndef WARPSIZE\n#define WARPSIZE 64\n#endif\n#define FLAG 1\n#define BLK 256\nWARPSIZE BLK\n", defs, 5);
  is_str(x.flat, "32256", "a file's #ifndef default yields to the command line; its #define replaces it");
  is_str(x.diag, "k.cu:5:9: warning: \"BLK\" redefined: the file replaces the value given on the command line\n",
         "and that is worth a warning (FLAG 1 is the same value: none)");
  done(&x);
  pp_define bad[] = { { "3x", "1" } };
  src_defs(&x, "a\n", bad, 1);
  has_str(x.diag, "invalid define \"3x\"", "a bad command-line define");
  done(&x);
}

static char *tmpdir;

static void put(const char *name, const char *text)
{
  char *p = dg_printf("%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  free(p);
}

static void load(R *x, const char *name, const pp_define *defs, int n)
{
  dg_srcmgr_init(&x->sm);
  char *p = dg_printf("%s/%s", tmpdir, name);
  uint32_t f = dg_srcmgr_load(&x->sm, p);
  free(p);
  go(x, f, defs, n);
}

static void test_includes(void)
{
  char tmpl[] = "/tmp/dg_pp_XXXXXX";
  tmpdir = mkdtemp(tmpl);
  if (!tmpdir) {
    ok(0, "mkdtemp");
    return;
  }
  char *sub = dg_printf("%s/sub", tmpdir);
  mkdir(sub, 0700);
  put("main.cu", "#include <cuda_fp16.h>\n#include \"sub/h.h\"\n#include <cooperative_groups/reduce.h>\n"
                 "int m = H;\n#include <weird.h>\n#include \"cuda_runtime.h\"\n");
  put("sub/h.h", "#pragma once\n#include \"g.h\"\n#define H G + 1\n int h;\n");
  put("sub/g.h", "#ifndef G_H\n#define G_H\n#include \"h.h\"\n#define G 41\n#endif\n");
  R x;
  load(&x, "main.cu", NULL, 0);
  is_str(x.flat, "inth;intm=41+1;", "local includes, relative to the including file");
  ok(x.ok, "no errors");
  has_str(x.diag, "main.cu:5:10: warning: unknown system header <weird.h> skipped", "unknown <header> warns");
  is_int(x.r.system_headers.n, 3, "system headers recorded");
  if (x.r.system_headers.n == 3) {
    is_str(x.r.system_headers.v[0], "cuda_fp16.h", "first system header");
    is_str(x.r.system_headers.v[1], "cooperative_groups/reduce.h", "second system header");
    is_str(x.r.system_headers.v[2], "cuda_runtime.h", "a quoted system header that is not a file");
  }
  dg_span s = span_of(&x, "int h", 0);
  ok(s.file && strstr(dg_srcmgr_path(&x.sm, s.file), "sub/h.h") && s.line == 4 && s.col == 2,
     "a header's text maps into the header");
  ok(span_is(span_of(&x, "int m", 0), 1, 4, 1), "the includer's text after an include maps back");
  ok(span_is(span_of(&x, "41", 0), 1, 4, 9), "a macro from a header maps to its use");
  done(&x);

  put("miss.cu", "int a;\n#include  \"missing.h\"\n#include\n#include nothing\n");
  load(&x, "miss.cu", NULL, 0);
  has_str(x.diag, "miss.cu:2:11: error: cannot open include file \"missing.h\"", "missing include names file:line:col");
  has_str(x.diag, "miss.cu:3:2: error: #include expects", "#include without a name");
  has_str(x.diag, "miss.cu:4:10: error: #include expects", "#include of an identifier that is no macro");
  ok(!x.ok, "missing include fails the run");
  done(&x);

  put("c1.h", "#include \"c2.h\"\nint c1;\n");
  put("c2.h", "#include \"c1.h\"\nint c2;\n");
  put("cyc.cu", "#include \"c1.h\"\n");
  load(&x, "cyc.cu", NULL, 0);
  has_str(x.diag, "c2.h:1:10: error: #include cycle: \"c1.h\" includes itself", "include cycle");
  is_str(x.flat, "intc2;intc1;", "the rest is kept");
  done(&x);

  for (int i = 0; i < 70; i++) {
    char name[32], text[64];
    snprintf(name, sizeof name, "d%d.h", i);
    snprintf(text, sizeof text, "#include \"d%d.h\"\n", i + 1);
    put(name, text);
  }
  put("d70.h", "int deep;\n");
  load(&x, "d0.h", NULL, 0);
  has_str(x.diag, "error: #include nested too deeply", "include depth limit");
  done(&x);

  for (int i = 0; i < 20; i++) {
    char name[32], text[64];
    snprintf(name, sizeof name, "b%d.h", i);
    snprintf(text, sizeof text, "#include \"b%d.h\"\n#include \"b%d.h\"\n", i + 1, i + 1);
    put(name, text);
  }
  put("b20.h", "x\n");
  load(&x, "b0.h", NULL, 0);
  has_str(x.diag, "error: more than 10000 #includes; stopped", "an include bomb is stopped");
  done(&x);

  put("m.cu", "#define HDR \"sub/h.h\"\n#include HDR\nint k = H;\n#if __has_include(\"sub/g.h\") && !__has_include(\"sub/zz.h\")\nint yes;\n#endif\n");
  load(&x, "m.cu", NULL, 0);
  is_str(x.flat, "inth;intk=41+1;intyes;", "#include MACRO and __has_include of local files");
  done(&x);

  const char *files[] = { "main.cu", "sub/h.h", "sub/g.h", "miss.cu", "c1.h", "c2.h", "cyc.cu", "m.cu" };
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char *p = dg_printf("%s/%s", tmpdir, files[i]);
    unlink(p);
    free(p);
  }
  for (int i = 0; i <= 70; i++) {
    char *p = dg_printf("%s/d%d.h", tmpdir, i);
    unlink(p);
    free(p);
    p = dg_printf("%s/b%d.h", tmpdir, i);
    unlink(p);
    free(p);
  }
  rmdir(sub);
  free(sub);
  rmdir(tmpdir);
}

static void test_hostile(void)
{
  R x;
  dg_buf b = {0};
  dg_buf_puts(&b, "#define a0 x x\n");
  for (int i = 1; i < 40; i++) dg_buf_printf(&b, "#define a%d a%d a%d\n", i, i - 1, i - 1);
  dg_buf_puts(&b, "a39\n");
  size_t limit = pp_max_expansion;
  pp_max_expansion = 50000;            /* the default takes long under valgrind */
  src(&x, b.s);
  has_str(x.diag, "k.cu:41:1: error: macro expansion too large (more than 50000 tokens)", "a macro bomb is stopped");
  ok(!x.ok && x.r.len < 2000000, "and fails with bounded output");
  done(&x);
  pp_max_expansion = limit;
  dg_buf_free(&b);

  dg_buf_puts(&b, "#define F(x) x\n");
  for (int i = 0; i < 300; i++) dg_buf_puts(&b, "F(");
  for (int i = 0; i < 300; i++) dg_buf_puts(&b, ")");
  src(&x, b.s);
  has_str(x.diag, "k.cu:2:401: error: macro arguments nested too deeply", "deeply nested macro calls");
  done(&x);
  dg_buf_free(&b);
  dg_buf_puts(&b, "#define F(x) x\n");
  for (int i = 0; i < 5000; i++) dg_buf_puts(&b, "F(");
  src(&x, b.s);
  has_str(x.diag, "k.cu:2:1: error: unterminated argument list", "5000 unclosed calls");
  done(&x);
  dg_buf_free(&b);
  dg_buf_puts(&b, "#if ");
  for (int i = 0; i < 5000; i++) dg_buf_puts(&b, "(");
  dg_buf_puts(&b, "\n#endif\n#if ");
  for (int i = 0; i < 5000; i++) dg_buf_puts(&b, "~");
  dg_buf_puts(&b, "1\n#endif\n");
  src(&x, b.s);
  has_str(x.diag, "k.cu:1:105: error: expression nesting too deep", "deep #if nesting is an error, not a crash");
  has_str(x.diag, "k.cu:3:204: error: expression nesting too deep", "deep unary nesting too");
  done(&x);
  dg_buf_free(&b);

  src(&x, "#define f(x) f(x)\n#define g f(g\nf(f(f(1)))) g) #\n#define h(x) #x\nh(\n");
  ok(strstr(x.flat, "f(f(f(1)))"), "self-referencing calls stop");
  done(&x);

  /* random byte soup: no crash, no hang, no leak (valgrind/ASan watch) */
  static const char *const parts[] = {
    "#", "define ", "if ", "elif ", "endif", "include ", "\"", "'", "(", ")", ",", "##", "...",
    "__VA_ARGS__", "A", "B", "\n", " ", "\\\n", "/*", "*/", "//", "1", "0x", "defined", "<", ">",
    "R\"(", "_Pragma", "pragma ", "undef ", "else", "?", ":", "/", "%",
  };
  dg_rng rng;
  dg_rng_seed(&rng, 42);
  int crashed = 0;
  for (int n = 0; n < 300; n++) {
    dg_buf_puts(&b, "#define A(x, ...) x ## __VA_ARGS__ # x\n#define B A(B, A\n");
    int len = (int)dg_rng_below(&rng, 80);
    for (int i = 0; i < len; i++) dg_buf_puts(&b, parts[dg_rng_below(&rng, sizeof parts / sizeof *parts)]);
    src(&x, b.s);
    crashed |= x.r.text == NULL;
    for (size_t i = 0; i < x.r.len; i += 7) (void)pp_span(&x.r, i);
    done(&x);
    dg_buf_free(&b);
  }
  ok(!crashed, "300 random inputs preprocess without crashing");
}

static void test_speed(void)
{
  dg_buf b = {0};
  dg_buf_puts(&b, "#define IDX(r, c, n) ((r) * (n) + (c))\n#define TILE 16\n#include <cuda_runtime.h>\n");
  for (int i = 0; i < 1000; i++)
    dg_buf_printf(&b, "__global__ void k%d(float *y, const float *x, int n) {\n"
                      "  int r = blockIdx.y * TILE + threadIdx.y; /* row */\n"
                      "#pragma unroll\n  for (int c = 0; c < TILE; c++) y[IDX(r, c, n)] = x[IDX(c, r, n)] * 2.0f;\n}\n", i);
  R x;
  double t0 = dg_now();
  src(&x, b.s);
  double dt = dg_now() - t0;
  ok(x.ok && x.r.pragmas.n == 1000, "5,000 lines preprocess (%.1f ms)", dt * 1e3);
  ok(dt < 2.0, "in well under the time budget (few ms natively; valgrind is slower)");
  dg_span s = span_of(&x, "void k999", 0);
  ok(span_is(s, 1, 3 + 999 * 5 + 1, 12), "positions at the end of a long file");
  done(&x);
  dg_buf_free(&b);
}

int main(void)
{
  test_macros();
  test_conditionals();
  test_directives();
  test_text_and_spans();
  test_defines();
  test_includes();
  test_hostile();
  test_speed();
  return tap_done();
}
