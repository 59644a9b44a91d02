/* t/fuzz/fe_fuzz.c — libFuzzer harness for the front end: any bytes through
 * pp -> tree-sitter -> lowering -> IR printer -> template instantiation.
 * Built and run by `make fuzz-frontend` (clang -fsanitize=fuzzer,address). */
#include "fe.h"
#include <string.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > 1 << 16) return 0;
  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  uint32_t f = dg_srcmgr_add(&sm, "fuzz.cu", text, size);
  dg_diags d = { 0 };
  dg_module *m = fe_load_file(&sm, f, NULL, &d);
  if (m) {
    dg_buf b = { 0 };
    for (size_t i = 0; i < m->funcs.n; i++) ir_print_func(&b, m, m->funcs.v[i]);
    /* instantiate each template with a few plausible argument lists */
    static const char *const args[] = { "<float>", "<int, 4>", "<float, 256, true>", "<__half, 2>" };
    size_t nt = m->templates.n;
    for (size_t i = 0; i < nt && i < 4; i++)
      for (size_t j = 0; j < sizeof args / sizeof *args; j++) {
        char *name = dg_printf("%s%s", m->templates.v[i], args[j]);
        dg_func *fn = fe_instantiate(m, name, &d);
        if (fn) ir_print_func(&b, m, fn);
        free(name);
      }
    for (size_t i = 0; i < d.v.n; i++) dg_diag_format(&b, &sm, &d.v.v[i]);
    dg_buf_free(&b);
  }
  fe_module_free(m);
  dg_diags_free(&d);
  dg_srcmgr_free(&sm);
  return 0;
}
