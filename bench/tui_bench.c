/* tui_bench.c — what the screen costs, on the headless backend (the same view
 * code as curses, minus the terminal):
 *   open a 5,000-line .cu to first paint   budget 100 ms (theme, highlight
 *                                          query, highlighted first screen, draw)
 *   then the rest before the first key     reported (whole-file highlighting,
 *                                          syntax and front-end diagnostics)
 *   a picker keypress to a redrawn screen  budget 16 ms, median of 201
 * Prints a table; exits 1 when a budget is missed. */
#include "tui.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *kernel_text =
  "// block %d: softmax over a row, one block per row\n"
  "__global__ void softmax_%d(float *__restrict__ y, const float *__restrict__ x, int N, int C)\n"
  "{\n"
  "  __shared__ float red[256];\n"
  "  int row = blockIdx.x, t = threadIdx.x;\n"
  "  const float *xr = x + (size_t)row * C;\n"
  "  float m = -INFINITY;\n"
  "  for (int c = t; c < C; c += blockDim.x) m = fmaxf(m, xr[c]);\n"
  "  red[t] = m;\n"
  "  __syncthreads();\n"
  "  for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
  "    if (t < s) red[t] = fmaxf(red[t], red[t + s]);\n"
  "    __syncthreads();\n"
  "  }\n"
  "  m = red[0];\n"
  "  __syncthreads();\n"
  "  float sum = 0.0f;\n"
  "  for (int c = t; c < C; c += blockDim.x) sum += expf(xr[c] - m);\n"
  "  red[t] = sum;\n"
  "  __syncthreads();\n"
  "  for (int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
  "    if (t < s) red[t] += red[t + s];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  for (int c = t; c < C; c += blockDim.x) y[(size_t)row * C + c] = expf(xr[c] - m) / red[0];\n"
  "}\n"
  "\n";

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void row(const char *what, double ms, double budget)
{
  printf("%-44s %10.3f ms  budget %6.1f ms  %s\n", what, ms, budget, ms <= budget ? "ok" : "OVER");
}

int main(void)
{
  const char *src = getenv("DG_SRCDIR");
  if (!src) src = DG_DATADIR;
  char path[] = "/tmp/dg-tui-bench-XXXXXX.cu";
  int fd = mkstemps(path, 3);
  if (fd < 0) { perror("mkstemps"); return 1; }
  FILE *f = fdopen(fd, "w");
  int lines = 0;
  for (int k = 0; lines < 5000; k++) {
    fprintf(f, kernel_text, k, k);
    lines += 27;
  }
  fclose(f);

  /* open to first paint: a fresh app, as `dirigo FILE.cu` does */
  double best_open = 1e9, rest_ms = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = dg_now();
    tui_backend *b = tui_headless_new(120, 40);
    tui_options o = { .datadir = src };
    dg_buf msgs = {0};
    tui_app *a = tui_app_new(b, &o, &msgs);
    bool ok = tui_app_open(a, path);
    tui_app_draw(a);
    double ms = (dg_now() - t0) * 1e3;
    double t1 = dg_now();
    tui_app_idle(a);
    tui_app_draw(a);
    double rest = (dg_now() - t1) * 1e3;
    if (rest > rest_ms) rest_ms = rest;
    if (!ok || msgs.n) fprintf(stderr, "tui_bench: open failed: %s\n", msgs.s ? msgs.s : a->message);
    if (ms < best_open) best_open = ms;
    dg_buf_free(&msgs);
    tui_app_free(a);
  }
  printf("%d-line .cu\n", lines);
  row("open to first paint (best of 3)", best_open, 100);
  printf("%-44s %10.3f ms  (whole-file highlighting, syntax and front-end diagnostics)\n",
         "then the rest, before the first key (max)", rest_ms);

  /* picker keypresses on a 1024x1024 output with verdicts and heat */
  tui_backend *b = tui_headless_new(120, 40);
  tui_options o = { .datadir = src };
  dg_buf msgs = {0};
  tui_app *a = tui_app_new(b, &o, &msgs);
  tui_app_open(a, path);
  tui_app_idle(a);
  int64_t shape[2] = { 1024, 1024 };
  int ti = tui_model_add_tensor(&a->model, "y", 2, shape);
  tui_tensor *t = &a->model.tensors.v[ti];
  for (int64_t i = 0; i < 1024; i += 3)
    for (int64_t j = 0; j < 1024; j += 5) {
      int64_t idx[2] = { i, j };
      tui_tensor_set_state(t, idx, (tui_cell_state)((i + j) % TUI_CELL__COUNT));
      tui_tensor_set_heat(t, idx, (double)((i * j) % 10) / 10);
    }
  tui_app_key(a, TUI_KEY_TAB);
  tui_app_draw(a);
  enum { N = 201 };
  double ms[N];
  static const int keys[] = { 'l', 'j', 'l', 'j', TUI_KEY_PGDN, 'h', 'k' };
  for (int i = 0; i < N; i++) {
    double t0 = dg_now();
    tui_app_key(a, keys[i % 7]);
    tui_app_draw(a);
    ms[i] = (dg_now() - t0) * 1e3;
  }
  qsort(ms, N, sizeof *ms, cmp_double);
  row("picker keypress to redrawn screen (median)", ms[N / 2], 16);
  printf("%-44s %10.3f ms\n", "picker keypress to redrawn screen (max)", ms[N - 1]);
  dg_buf_free(&msgs);
  tui_app_free(a);
  unlink(path);
  return best_open <= 100 && ms[N / 2] <= 16 ? 0 : 1;
}
