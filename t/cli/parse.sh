#!/bin/sh
# t/cli/parse.sh — `dirigo parse`: listing, --ir, --json, -D, -T, diagnostics, exit codes.
: "${DIRIGO:=./dirigo}"
tmp=${TMPDIR:-/tmp}/dg_parse_$$
mkdir -p "$tmp"; trap 'rm -rf "$tmp"' EXIT
n=0; fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=$((fail + 1)); fi; }

cat > "$tmp/k.cu" <<'CU'
#include <cuda_runtime.h>
__device__ float sq(float v) { return v * v; }
template <typename T, int BS = 128>
__global__ void scale(T *y, const T *x, int n) { int i = blockIdx.x * BS + threadIdx.x; if (i < n) y[i] = x[i] * (T)SCALE; }
__global__ void add(float *y, const float *__restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += sq(x[i]);
}
void host(float *y, float *x, int n) { add<<<(n + 255) / 256, 256>>>(y, x, n); }
CU
out=$("$DIRIGO" parse "$tmp/k.cu" -DSCALE=2 2>"$tmp/err"); rc=$?
t "exit 0 on a clean file" '[ $rc -eq 0 ]'
t "no diagnostics" '[ ! -s "$tmp/err" ]'
t "kernel listed with params" 'echo "$out" | grep -q "kernel   add(float \* y, const float \* x, int n)"'
t "device function listed" 'echo "$out" | grep -q "device   sq(float v) -> float"'
t "template listed" 'echo "$out" | grep -q "template <typename T, int BS = 128> __global__ void scale"'
t "host launch listed" 'echo "$out" | grep -q "launch   add<<<(n + 255) / 256, 256>>>(y, x, n)"'
out=$("$DIRIGO" parse "$tmp/k.cu" -D SCALE=2 --ir -T 'scale<float>' 2>"$tmp/err"); rc=$?
t "-T instantiates" 'echo "$out" | grep -q "kernel   scale<float, 128>(float \* y"'
t "--ir prints the body" 'echo "$out" | grep -q "y\[i\] += sq(x\[i\]);"'
t "-D reaches the preprocessor" 'echo "$out" | grep -q "(x\[i\] \* (float)2)"'
out=$("$DIRIGO" parse "$tmp/k.cu" -DSCALE=2 --json 2>"$tmp/err"); rc=$?
t "--json exit 0" '[ $rc -eq 0 ]'
t "--json functions" 'echo "$out" | grep -q "\"name\": \"add\", \"base\": \"add\", \"kind\": \"kernel\""'
t "--json launches" 'echo "$out" | grep -q "\"kernel\": \"add\""'
t "--json errors 0" 'echo "$out" | grep -q "\"errors\": 0}"'
if command -v python3 >/dev/null 2>&1; then
  t "--json is valid JSON" 'echo "$out" | python3 -c "import json,sys; json.load(sys.stdin)"'
fi

cat > "$tmp/bad.cu" <<'CU'
__global__ void good(float *y) { y[0] = 1.0f; }
__global__ void bad(float *y) { y[0] = undefined_thing; }
__global__ void uns(float *y) { goto out; out: y[0] = 0; }
CU
out=$("$DIRIGO" parse "$tmp/bad.cu" 2>"$tmp/err"); rc=$?
t "exit 2 with errors" '[ $rc -eq 2 ]'
t "error names file:line:col" 'grep -q "bad.cu:2:40: error: use of undeclared identifier .undefined_thing." "$tmp/err"'
t "unsupported construct named" 'grep -q "bad.cu:3:33: unsupported: goto and labels" "$tmp/err"'
t "the good kernel still loads" 'echo "$out" | grep -q "kernel   good"'
t "the bad kernels are dropped" '! echo "$out" | grep -q "kernel   bad"'
out=$("$DIRIGO" parse "$tmp/bad.cu" --json 2>"$tmp/err"); rc=$?
t "--json diagnostics" 'echo "$out" | grep -q "\"severity\": \"error\", \"file\": \"$tmp/bad.cu\", \"line\": 2, \"col\": 40"'

"$DIRIGO" parse "$tmp/missing.cu" >/dev/null 2>"$tmp/err"; rc=$?
t "unreadable file: exit 2" '[ $rc -eq 2 ]'
t "unreadable file: message names it" 'grep -q "missing.cu" "$tmp/err"'
"$DIRIGO" parse >/dev/null 2>&1; rc=$?
t "no file: usage, exit 2" '[ $rc -eq 2 ]'
"$DIRIGO" parse "$tmp/k.cu" --bogus >/dev/null 2>&1; rc=$?
t "unknown option: exit 2" '[ $rc -eq 2 ]'
"$DIRIGO" parse "$tmp/k.cu" -DSCALE=2 -T 'nosuch<int>' >/dev/null 2>"$tmp/err"; rc=$?
t "bad -T: exit 2 with a message" '[ $rc -eq 2 ] && grep -q "nosuch" "$tmp/err"'

# a missing ';' before the closing brace: tree-sitter reads the kernel as a
# declaration with an initializer list; the kernel must not vanish silently
printf '__global__ void k(float *y) { y[0] = 1.0f \n}\n' > "$tmp/semi.cu"
"$DIRIGO" parse "$tmp/semi.cu" >/dev/null 2>"$tmp/err"; rc=$?
t "missing ';' in a kernel: exit 2" '[ $rc -eq 2 ]'
t "missing ';' in a kernel: syntax error at file:line:col" 'grep -q "semi.cu:[0-9]*:[0-9]*: error: syntax error: missing .;." "$tmp/err"'
mkdir -p "$tmp/dir.cu"
"$DIRIGO" parse "$tmp/dir.cu" >/dev/null 2>"$tmp/err"; rc=$?
t "a directory: exit 2, 'Is a directory'" '[ $rc -eq 2 ] && grep -q "dir.cu.: Is a directory" "$tmp/err"'
# sizes no GPU takes: errors at the declaration, not an emulator that aborts or eats the memory
cat > "$tmp/big.cu" <<'CU'
__global__ void a(float *y) { __shared__ float s[1 << 30]; s[0] = 1; y[0] = s[0]; }
__global__ void b(float *y) { float t[1 << 28]; t[0] = 1; y[0] = t[0]; }
__global__ void c(float *y) { float u[1000000][1000000][1000000]; y[0] = 0; }
__device__ float g[1LL << 33];
__constant__ float w[65536];
CU
"$DIRIGO" parse "$tmp/big.cu" >/dev/null 2>"$tmp/err"; rc=$?
t "huge arrays: exit 2" '[ $rc -eq 2 ]'
t "4 GB of __shared__: an error at 1:48" 'grep -q "big.cu:1:48: error: __shared__ variable of 4294967296 bytes: a GPU block has at most 227 KiB" "$tmp/err"'
t "1 GB a thread: an error at 2:37" 'grep -q "big.cu:2:37: error: local variable of 1073741824 bytes: a GPU thread has at most 512 KiB" "$tmp/err"'
t "32 GB __device__ array: an error at 4:18" 'grep -q "big.cu:4:18: error: __device__ variable of 34359738368 bytes: more than the emulator holds" "$tmp/err"'
t "256 KiB __constant__: an error" 'grep -q "big.cu:5:20: error: __constant__ variable of 262144 bytes: a GPU has 64 KiB" "$tmp/err"'
t "an array of 2^60 floats: an error, not an overflow" 'grep -q "big.cu:3:[0-9]*: error: array of more than 2^40 bytes" "$tmp/err"'
# a problem spec given to parse: it says what parse takes (it listed nothing and exited 0)
printf 'return problem { source = "k.cu" }\n' > "$tmp/p.lua"
"$DIRIGO" parse "$tmp/p.lua" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "parse of a spec (.lua): exit 2" '[ $rc -eq 2 ]'
t "it says parse takes the kernel file" 'grep -q "p.lua is a problem spec (Lua): parse takes a kernel file (.cu), here k.cu" "$tmp/err"'
echo "1..$n"
[ $fail -eq 0 ]
