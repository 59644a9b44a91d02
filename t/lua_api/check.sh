#!/bin/sh
# t/lua_api/check.sh — dirigo.check from scripts (t/lua_api/check_api.lua) on a
# small row-sum kernel and a buggy copy of it. TAP.
: "${DIRIGO:=./dirigo}" "${DG_SRCDIR:=.}"
export XDG_CONFIG_HOME=/nonexistent
W=$(mktemp -d "${TMPDIR:-/tmp}/dg_lcheck.XXXXXX")
trap 'rm -rf "$W"' EXIT
cat > "$W/rows.cu" <<'CU'
__global__ void k(float *y, const float *x, int N, int C)
{
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++) acc += x[n * C + c];
  y[n] = acc;
}
CU
sed 's/c < C;/c < C - 1;/' "$W/rows.cu" > "$W/bug.cu"
for k in rows bug; do
  printf 'return problem {\n  source = "%s.cu",\n  op = "sum",\n  sizes = { N = 2, C = 3 },\n  launch = "k<<<1, 32>>>(y, x, N, C)",\n}\n' $k > "$W/$k.lua"
done
"$DIRIGO" run "$DG_SRCDIR/t/lua_api/check_api.lua" "$W"
