#!/bin/sh
# Compiles the device code of every sample with nvcc (sm_90 unless NVCC_ARCH is set).
# Exit 77 (skip) without nvcc or lua5.4; 1 if any sample fails to compile.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
LUA=${LUA:-lua5.4}
[ -x "$NVCC" ] || { echo "1..0 # SKIP nvcc not found"; exit 77; }
command -v "$LUA" >/dev/null 2>&1 || { echo "1..0 # SKIP $LUA not found"; exit 77; }
arch=${NVCC_ARCH:-sm_90}
cd "$root" || exit 1
list=$("$LUA" "$here/sample_defines.lua") || exit 1
n=0; fail=0
echo "$list" | {
  while read -r f defs; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    if out=$("$NVCC" -arch="$arch" $defs -c -o /dev/null "$f" 2>&1); then
      echo "ok $n - nvcc $f"
    else
      echo "not ok $n - nvcc $f"; echo "$out" | sed 's/^/# /'; fail=$((fail + 1))
    fi
  done
  echo "1..$n"
  [ "$fail" -eq 0 ]
}
