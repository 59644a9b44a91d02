/* cli_mutants.c — `dirigo mutants PROBLEM|DIR... [--ops a,b] [--out DIR]`:
 * the mutants of each problem's kernel (mutate.h). Without --out it lists
 * them as file:line:col; with --out every mutant becomes a problem of its
 * own — OUT/<spec stem>-<op>-<k>/ holding the spec, with a seeded_bug naming
 * the mutation (in the .cu's dirigo: block when that is the spec), the
 * mutated kernel at the spec's relative path, and the headers beside it — that `dirigo sweep OUT` scores like the samples. */
#include "cli.h"
#include "cli_load.h"
#include "mutate.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  unsigned ops;
  const char *out;
  int problems, written, skipped, per_op[DG_MUT__COUNT];
  bool failed;                  /* a write failed: nothing more is written */
} mut_run;

static int usage(const char *why)
{
  fprintf(stderr, "dirigo mutants: %s\nusage: dirigo mutants PROBLEM|DIR... [--ops ", why);
  for (int i = 0; i < DG_MUT__COUNT; i++) fprintf(stderr, "%s%s", i ? "," : "", dg_mutop_name((dg_mutop)i));
  fprintf(stderr, "] [--out DIR]\n");
  return DG_EXIT_USAGE;
}

static bool parse_ops(const char *list, unsigned *mask)
{
  *mask = 0;
  char *s = dg_strdup(list), *save = NULL;
  bool ok = true;
  for (char *t = strtok_r(s, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
    int op = dg_mutop_lookup(t);
    if (op < 0) fprintf(stderr, "dirigo mutants: unknown operator '%s' (--ops takes a list of: ", t);
    for (int i = 0; op < 0 && i < DG_MUT__COUNT; i++)
      fprintf(stderr, "%s%s", dg_mutop_name((dg_mutop)i), i + 1 < DG_MUT__COUNT ? ", " : ")\n");
    ok = op >= 0;
    if (ok) *mask |= 1u << op;
  }
  free(s);
  return ok && *mask;
}

static bool write_file(const char *path, const char *text, size_t len)
{
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(text, 1, len, f) == len;
  if (f) ok = fclose(f) == 0 && ok;
  if (!ok) fprintf(stderr, "dirigo mutants: cannot write %s: %s\n", path, strerror(errno));
  return ok;
}

static bool has_ext(const char *name, const char *ext)
{
  size_t n = strlen(name), e = strlen(ext);
  return n > e && !strcmp(name + n - e, ext);
}

/* The headers of src_dir (.cuh .h .hpp .inc) copied into to_dir. */
static bool copy_headers(const char *src_dir, const char *to_dir)
{
  DIR *D = opendir(src_dir);
  if (!D) return true;
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(D)))
    if (has_ext(e->d_name, ".cuh") || has_ext(e->d_name, ".h") || has_ext(e->d_name, ".hpp") ||
        has_ext(e->d_name, ".inc")) {
      char *from = dg_printf("%s/%s", src_dir, e->d_name), *to = dg_printf("%s/%s", to_dir, e->d_name);
      size_t len;
      char *text = dg_read_file(from, &len);
      ok = !text || write_file(to, text, len);
      free(text), free(from), free(to);
    }
  closedir(D);
  return ok;
}

/* Where a problem's seeded_bug goes: after the `dirigo:` of a kernel file's
 * spec block, or after the `{` of a Lua spec's `problem {`. NULL: nowhere. */
static const char *seed_point(const char *spec, bool cu)
{
  const char *at = spec;
  if (cu) return (at = strstr(spec, "dirigo:")) ? at + 7 : NULL;
  while ((at = strstr(at, "problem"))) {
    const char *b = at + 7;
    while (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r') b++;
    if (*b == '{' && (at == spec || !(at[-1] == '_' || (at[-1] >= 'a' && at[-1] <= 'z')))) return b + 1;
    at = b;
  }
  return NULL;
}

/* spec's text with `seeded_bug = {...},` at its seed_point; NULL when it has none. */
static char *seed_spec(const char *spec, bool cu, const char *op, const char *detail)
{
  const char *at = seed_point(spec, cu);
  return at ? dg_printf("%.*s%s seeded_bug = { pattern = \"mutant-%s\", detail = [==[%s]==] },%s", (int)(at - spec),
                        spec, cu ? "\n " : "", op, detail, at)
            : NULL;
}

/* Writes mutant k of L's problem; false (said on stderr) when it cannot. */
static bool write_mutant(mut_run *R, const cli_problem *L, const char *rel, const char *text, size_t len,
                         const dg_mutant *m, int k)
{
  const dg_problem *p = L->p;
  const char *base = strrchr(p->spec_path, '/');
  base = base ? base + 1 : p->spec_path;
  const char *dot = strrchr(base, '.');
  size_t stem = dot && dot > base ? (size_t)(dot - base) : strlen(base);
  char *dir = dg_printf("%s/%.*s-%s-%02d", R->out, (int)stem, base, dg_mutop_name(m->op), k);
  char *src_to = dg_printf("%s/%s", dir, rel), *spec_to = dg_printf("%s/%s", dir, base);
  char *src_dir = dg_dirname(p->source), *src_to_dir = dg_dirname(src_to);
  char *detail = dg_printf("%s:%u:%u: %s", rel, m->line, m->col, m->desc);
  size_t slen;
  bool cu = !strcmp(p->spec_path, p->source);   /* the spec is the kernel file's dirigo: block */
  char *mutated = dg_mutant_apply(text, len, m);
  char *spec = cu ? NULL : dg_read_file(p->spec_path, &slen);
  char *seeded = cu || spec ? seed_spec(cu ? mutated : spec, cu, dg_mutop_name(m->op), detail) : NULL;
  bool ok = seeded != NULL;
  if (!ok) fprintf(stderr, "%s: no `%s` to add the mutant's seeded_bug to; skipped\n", p->spec_path,
                   cu ? "dirigo:" : "problem {");
  ok = ok && dg_mkdirs(src_to, false, 0777) && dg_mkdirs(dir, true, 0777);
  if (!ok && seeded) fprintf(stderr, "dirigo mutants: cannot create %s: %s\n", dir, strerror(errno));
  ok = ok && (cu || write_file(src_to, mutated, strlen(mutated))) && write_file(spec_to, seeded, strlen(seeded)) &&
       copy_headers(src_dir, src_to_dir);
  free(dir), free(src_to), free(spec_to), free(src_dir), free(src_to_dir), free(detail), free(spec), free(seeded);
  free(mutated);
  return ok;
}

/* One problem: its mutants listed or written. */
static void one(mut_run *R, const char *path, bool from_dir)
{
  cli_problem L;
  bool ok = cli_problem_load(&L, path, true);
  const dg_problem *p = L.p;
  if (!ok) {
    fprintf(stderr, "%s: skipped: %s\n", path, L.why ? L.why : "it does not load");
    R->skipped++;
  } else if (from_dir && p->bug_pattern) {
    ok = false;   /* a seeded bug already: not a correct kernel to mutate */
  } else if (!p->source) {
    fprintf(stderr, "%s: skipped: no kernel file\n", path);
    R->skipped++, ok = false;
  }
  size_t len = 0;
  char *text = ok ? dg_read_file(p->source, &len) : NULL;
  char *sdir = ok ? dg_dirname(p->spec_path) : NULL;
  size_t sl = sdir ? strlen(sdir) : 0;
  const char *rel = ok && !strncmp(p->source, sdir, sl) && p->source[sl] == '/' ? p->source + sl + 1 : NULL;
  if (ok && !text) {
    fprintf(stderr, "%s: skipped: cannot read the kernel file %s\n", path, p->source);
    R->skipped++, ok = false;
  }
  if (ok && (!rel || strstr(rel, "..")) && R->out) {
    fprintf(stderr, "%s: skipped: the kernel file %s is not below the spec's folder\n", path, p->source);
    R->skipped++, ok = false;
  }
  if (ok) {
    const char **roots = dg_calloc(p->launches.n + 1, sizeof *roots);
    for (size_t i = 0; i < p->launches.n; i++) roots[i] = p->launches.v[i]->kernel;
    dg_mutants ms = {0};
    dg_mutate(text, len, roots, p->launches.n, R->ops, &ms);
    R->problems++;
    int nth[DG_MUT__COUNT] = {0};   /* mutant k of its operator in this problem: OUT/<stem>-<op>-<k> */
    for (size_t i = 0; i < ms.n; i++) {
      const dg_mutant *m = &ms.v[i];
      nth[m->op]++;
      if (!R->out) printf("%s:%u:%u: %s: %s\n", p->source, m->line, m->col, dg_mutop_name(m->op), m->desc);
      if (R->failed) break;
      if (!R->out || write_mutant(R, &L, rel, text, len, m, nth[m->op])) R->written++, R->per_op[m->op]++;
      else R->failed = true;
    }
    dg_mutants_free(&ms);
    free(roots);
  }
  free(text), free(sdir);
  cli_problem_free(&L);
}

int cli_mutants(int argc, char **argv)
{
  mut_run R = { .ops = (1u << DG_MUT__COUNT) - 1 };
  DG_VEC(const char *) paths = {0};
  int rc = DG_EXIT_OK;
  for (int i = 1; i < argc && rc == DG_EXIT_OK; i++) {
    if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
      if (!parse_ops(argv[++i], &R.ops)) rc = usage("--ops wants operator names separated by commas");
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) R.out = argv[++i];
    else if (argv[i][0] == '-') {
      char *why = dg_printf("unknown or incomplete option '%s'", argv[i]);
      rc = usage(why);
      free(why);
    } else
      dg_vec_push(&paths, argv[i]);
  }
  if (rc == DG_EXIT_OK && !paths.n) rc = usage("no problem or folder given");
  for (size_t i = 0; rc == DG_EXIT_OK && !R.failed && i < paths.n; i++) {
    struct stat st;
    if (stat(paths.v[i], &st) != 0) {
      fprintf(stderr, "dirigo mutants: %s: %s\n", paths.v[i], strerror(errno));
      rc = DG_EXIT_USAGE;
    } else if (S_ISDIR(st.st_mode)) {
      size_t n = 0;
      char **specs = cli_find_specs(paths.v[i], &n);
      for (size_t k = 0; k < n; k++) {
        if (!R.failed) one(&R, specs[k], true);
        free(specs[k]);
      }
      free(specs);
    } else one(&R, paths.v[i], false);
  }
  if (rc == DG_EXIT_OK) {
    printf("%d mutant%s of %d problem%s%s%s (", R.written, R.written == 1 ? "" : "s", R.problems,
           R.problems == 1 ? "" : "s", R.out ? " written to " : "", R.out ? R.out : "");
    for (int i = 0, first = 1; i < DG_MUT__COUNT; i++)
      if (R.ops >> i & 1) printf("%s%s %d", first ? "" : ", ", dg_mutop_name((dg_mutop)i), R.per_op[i]), first = 0;
    printf(")%s\n", R.skipped ? "; some problems skipped (above)" : "");
    if (!R.problems || R.failed) rc = DG_EXIT_USAGE;
  }
  dg_vec_free(&paths);
  return rc;
}
