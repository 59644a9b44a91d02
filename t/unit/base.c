/* base.c — tests for util and diag. */
#include "util.h"
#include "diag.h"
#include "ir.h"
#include "dtype.h"
#include <math.h>
#include "../tap.h"
#include <unistd.h>

int main(void)
{
  DG_VEC(int) v = {0};
  for (int i = 0; i < 1000; i++) dg_vec_push(&v, i * 2);
  is_int(v.n, 1000, "vec grows to 1000");
  is_int(v.v[999], 1998, "vec keeps values");
  dg_vec_free(&v);

  dg_buf b = {0};
  dg_buf_printf(&b, "%s:%d", "x", 42);
  dg_buf_puts(&b, "!");
  is_str(b.s, "x:42!", "buf printf/puts");
  dg_buf_free(&b);
  dg_buf_json_str(&b, "a\"b\\c\n\x01");
  is_str(b.s, "\"a\\\"b\\\\c\\n\\u0001\"", "json string escapes");
  dg_buf_free(&b);

  dg_arena a = {0};
  char *s = dg_arena_strdup(&a, "hello");
  void *big = dg_arena_alloc(&a, 200000);
  ok(big && ((uintptr_t)big & 15) == 0, "arena big block aligned");
  is_str(s, "hello", "arena strdup");
  dg_arena_free(&a);

  char *d = dg_dirname("a/b/c.cu");
  is_str(d, "a/b", "dirname");
  free(d);
  d = dg_path_join("a/b", "x.lua");
  is_str(d, "a/b/x.lua", "path join");
  free(d);

  dg_rng r1, r2;
  dg_rng_seed(&r1, 7);
  dg_rng_seed(&r2, 7);
  int same = 1;
  for (int i = 0; i < 100; i++) same &= dg_rng_next(&r1) == dg_rng_next(&r2);
  ok(same, "rng replays by seed");

  dg_srcmgr sm;
  dg_srcmgr_init(&sm);
  uint32_t f = dg_srcmgr_add(&sm, "k.cu", dg_strdup("line one\nline two\n"), 18);
  size_t n;
  const char *l = dg_srcmgr_line(&sm, f, 2, &n);
  ok(n == 8 && !strncmp(l, "line two", 8), "srcmgr line 2");
  ok(dg_srcmgr_load(&sm, "/nonexistent/x.cu") == 0, "load of a missing file fails");
  dg_diags dd = {0};
  dg_diag_add(&dd, DG_SEV_UNSUPPORTED, (dg_span){ f, 2, 6 }, "goto");
  dg_buf out = {0};
  dg_diag_format(&out, &sm, &dd.v.v[0]);
  is_str(out.s, "k.cu:2:6: unsupported: goto", "diagnostic names file:line:col");
  is_int(dd.nerrors, 1, "unsupported counts as an error");
  dg_buf_free(&out);
  dg_diags_free(&dd);
  dg_srcmgr_free(&sm);

  is_int(dg_intrin_lookup("__shfl_xor_sync"), DG_IN___SHFL_XOR_SYNC, "builtin lookup");
  is_int(dg_intrins[DG_IN_ATOMICADD].cls, DG_IC_ATOMIC_ADD, "builtin class");
  is_int(dg_intrin_lookup("not_a_builtin"), -1, "unknown builtin");
  /* dtype conversions: round-to-nearest-even, overflow, subnormals */
  is_int(dg_f32_to_f16(1.0f), 0x3c00, "f16 of 1");
  is_int(dg_f32_to_f16(65504.0f), 0x7bff, "f16 max");
  is_int(dg_f32_to_f16(65520.0f), 0x7c00, "f16 overflow rounds to inf");
  is_int(dg_f32_to_f16(5.9604644775390625e-8f), 0x0001, "f16 smallest subnormal");
  is_int(dg_f32_to_f16(1.0f + 0x1p-11f), 0x3c00, "f16 tie rounds to even (down)");
  is_int(dg_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02, "f16 tie rounds to even (up)");
  ok(dg_f16_to_f32(0x7bff) == 65504.0f, "f16 back to f32");
  ok(isnan(dg_f16_to_f32(dg_f32_to_f16(NAN))), "f16 keeps nan");
  is_int(dg_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80, "bf16 tie to even");
  ok(dg_dtype_round(DG_DT_I32, 4294967297.0) == 1, "i32 wraps");
  ok(dg_dtype_ulps(DG_DT_F32, 1.0, 1.0 + 0x1p-23) == 1, "one f32 ulp");
  is_int(dg_dtype_parse("bf16"), DG_DT_BF16, "dtype parse");
  is_int(dg_dtype_parse("f8"), -1, "unknown dtype");
  return tap_done();
}
