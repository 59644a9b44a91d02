/* src.c — the device side of .cu files (gpu_src.c): host code blanked with
 * every line in place, on a torch-extension fixture and on the real samples;
 * the pure helpers of gpu.h (poison patterns, unwritten elements, statuses). */
#include "gpu.h"
#include "../tap.h"
#include <dirent.h>
#include <sys/stat.h>

static char *fixture(const char *name)
{
  const char *src = getenv("DG_SRCDIR");
  return dg_printf("%s/t/gpu/fixtures/%s", src ? src : "..", name);
}

/* The text of line `line` (1-based) of s, as a new string. */
static char *line_of(const char *s, int line)
{
  for (int l = 1; l < line && s; l++) {
    s = strchr(s, '\n');
    if (s) s++;
  }
  if (!s) return dg_strdup("");
  const char *e = strchr(s, '\n');
  return dg_strndup(s, e ? (size_t)(e - s) : strlen(s));
}

static bool blank_line(const char *s, int line)
{
  char *l = line_of(s, line);
  bool b = strspn(l, " ") == strlen(l);
  free(l);
  return b;
}

static bool dropped(const dg_gpu_src *s, const char *what, uint32_t line)
{
  for (size_t i = 0; i < s->dropped.n; i++)
    if (!strcmp(s->dropped.v[i].what, what) && s->dropped.v[i].line == line) return true;
  return false;
}

static bool has(char *const *v, size_t n, const char *x)
{
  for (size_t i = 0; i < n; i++) if (!strcmp(v[i], x)) return true;
  return false;
}

/* Same length, and newlines exactly where they were. */
static bool same_lines(const char *a, const char *b, size_t n)
{
  for (size_t i = 0; i < n; i++) if ((a[i] == '\n') != (b[i] == '\n')) return false;
  return true;
}

static void test_fixture(void)
{
  char *path = fixture("torch_ext.cu");
  size_t n;
  char *t = dg_read_file(path, &n);
  ok(t != NULL, "read %s", path);
  if (!t) { free(path); return; }
  dg_gpu_src s;
  dg_gpu_src_prepare(t, n, &s);
  is_int(s.len, n, "device text keeps the length");
  ok(same_lines(t, s.text, n), "device text keeps every newline in place");
  ok(dropped(&s, "#include <torch/extension.h>", 2), "torch include dropped (line 2)");
  ok(dropped(&s, "#include <cuda_runtime.h>", 3), "cuda_runtime.h dropped");
  ok(dropped(&s, "#include <vector>", 4), "<vector> dropped");
  ok(dropped(&s, "host function main", 53), "main dropped at line 53");
  ok(dropped(&s, "host function forward", 46), "torch wrapper dropped at line 46");
  ok(dropped(&s, "host function launch_reduce", 40), "templated launcher dropped with its template line");
  ok(dropped(&s, "host function PYBIND11_MODULE", 59), "PYBIND11_MODULE dropped");
  ok(blank_line(s.text, 43) && blank_line(s.text, 60), "launcher body and binding body are blank");
  ok(blank_line(s.text, 13), "host global std::vector dropped");
  char *l = line_of(s.text, 19);
  is_str(l, "__global__ void reduce6(const T *x, T *out, int n)", "template kernel kept verbatim");
  free(l);
  l = line_of(s.text, 18);
  is_str(l, "template <typename T, int B, bool CLAMP>", "its template line kept");
  free(l);
  l = line_of(s.text, 11);
  is_str(l, "__constant__ float scale_c[4];", "__constant__ global kept");
  free(l);
  l = line_of(s.text, 12);
  is_str(l, "__device__ int hits;", "__device__ global kept");
  free(l);
  l = line_of(s.text, 14);
  is_str(l, "constexpr int TILE = 16;", "constexpr kept");
  free(l);
  l = line_of(s.text, 7);
  is_str(l, "#include \"ext_helpers.h\"", "local include kept");
  free(l);
  ok(has(s.local_includes.v, s.local_includes.n, "ext_helpers.h"), "local include listed");
  is_int(s.kernels.n, 2, "two kernels found");
  ok(has(s.kernels.v, s.kernels.n, "reduce6") && has(s.kernels.v, s.kernels.n, "scale_add"),
     "kernels: reduce6, scale_add");
  ok(strstr(s.prelude, "cuda/std/cstdint") && strstr(s.prelude, "FLT_MAX"),
     "prelude replaces <cstdint> and <cfloat>");
  ok(!strstr(s.text, "torch::") && !strstr(s.text, "<<<") && !strstr(s.text, "printf"),
     "no torch, launch or printf left");
  dg_gpu_src_free(&s);
  free(t);
  free(path);
}

/* Every sample: lines kept, every __global__ function of the file listed as a
 * kernel, and nothing of it blanked. */
static void test_samples_in(const char *dir, int *count)
{
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char *p = dg_printf("%s/%s", dir, e->d_name);
    struct stat st;
    size_t nl = strlen(e->d_name);
    if (!stat(p, &st) && S_ISDIR(st.st_mode)) {
      test_samples_in(p, count);
    } else if (nl > 3 && !strcmp(e->d_name + nl - 3, ".cu")) {
      size_t n;
      char *t = dg_read_file(p, &n);
      dg_gpu_src s;
      dg_gpu_src_prepare(t, n, &s);
      bool kernels_kept = true;
      for (const char *q = strstr(t, "__global__"); q; q = strstr(q + 1, "__global__")) {
        /* the kernel's line must survive unblanked */
        size_t off = (size_t)(q - t);
        kernels_kept &= !memcmp(s.text + off, "__global__", 10);
      }
      ok(s.len == n && same_lines(t, s.text, n) && kernels_kept && s.kernels.n > 0,
         "sample %s: lines kept, %zu kernel(s) kept, %zu item(s) dropped", p, s.kernels.n, s.dropped.n);
      (*count)++;
      dg_gpu_src_free(&s);
      free(t);
    }
    free(p);
  }
  closedir(d);
}

static void test_helpers(void)
{
  dg_gpu_pattern f = dg_gpu_poison_for("f32");
  uint32_t bits;
  memcpy(&bits, f.b, 4);
  ok(f.len == 4 && bits == 0x7fc0deadu, "f32 poison is the NaN 0x7fc0dead");
  float v;
  memcpy(&v, f.b, 4);
  ok(v != v, "f32 poison is a NaN");
  dg_gpu_pattern h = dg_gpu_poison_for("f16"), i = dg_gpu_poison_for("i64");
  ok(h.len == 2 && i.len == 8 && i.b[7] == 0xff, "f16 poison 2 bytes, i64 poison 0xff x8");
  float out[6];
  for (int k = 0; k < 6; k++) memcpy(&out[k], f.b, 4);
  out[0] = 1.0f;
  out[2] = 0.0f;
  uint32_t canon = 0x7fffffffu;   /* a NaN the kernel computed is written, not unwritten */
  memcpy(&out[4], &canon, 4);
  size_t first;
  is_int(dg_gpu_unwritten(out, 6, f, &first), 3, "three elements still poisoned");
  is_int(first, 1, "the first is element 1");
  for (int k = 0; k < 6; k++) out[k] = 1.0f;
  is_int(dg_gpu_unwritten(out, 6, f, &first), 0, "all written");
  ok(first == SIZE_MAX, "no first unwritten");
  is_str(dg_gpu_status_name(DG_GPU_FAULT), "kernel-fault", "status names from the table");
  is_str(dg_gpu_status_name(DG_GPU_OOB_WRITE), "out-of-bounds", "out-of-bounds status name");
  dg_gpu_arg a = dg_gpu_arg_i32(-7);
  int32_t back;
  memcpy(&back, a.value, 4);
  ok(a.kind == DG_GPU_ARG_VALUE && a.size == 4 && back == -7, "i32 argument by value");
  a = dg_gpu_arg_dtype(DG_DT_F16, 1.0);
  ok(a.size == 2 && a.value[0] == 0x00 && a.value[1] == 0x3c, "f16 argument 1.0 is 0x3c00");
  a = dg_gpu_arg_dtype(DG_DT_I64, -2.0);
  int64_t i64;
  memcpy(&i64, a.value, 8);
  ok(a.size == 8 && i64 == -2, "i64 argument -2");
  a = dg_gpu_arg_dtype(DG_DT_F64, 0.1);
  double f64;
  memcpy(&f64, a.value, 8);
  ok(a.size == 8 && f64 == 0.1, "f64 argument 0.1");
  static const char big[100];
  a = dg_gpu_arg_bytes(big, sizeof big);
  is_int(a.size, 100, "an oversized value keeps its size, for the launch to refuse");
}

int main(void)
{
  test_fixture();
  const char *src = getenv("DG_SRCDIR");
  char *samples = dg_printf("%s/samples", src ? src : "..");
  int count = 0;
  test_samples_in(samples, &count);
  ok(count > 0, "%d sample .cu files prepared", count);
  free(samples);
  test_helpers();
  return tap_done();
}
