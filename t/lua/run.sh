#!/bin/sh
# Runs the Lua tests (op references, sample specs) with plain lua5.4; non-zero on any failure.
# Set NVCC_SAMPLES=1 to also compile every sample with nvcc (skipped when nvcc is missing).
here=$(cd "$(dirname "$0")" && pwd)
LUA=${LUA:-lua5.4}
command -v "$LUA" >/dev/null 2>&1 || { echo "1..0 # SKIP $LUA not found"; exit 77; }
status=0
for t in "$here"/test_*.lua; do
  echo "# $(basename "$t")"
  "$LUA" "$t" || status=1
done
if [ "${NVCC_SAMPLES:-0}" = 1 ]; then
  echo "# nvcc_samples.sh"
  sh "$here/nvcc_samples.sh"; rc=$?
  [ $rc -ne 0 ] && [ $rc -ne 77 ] && status=1
fi
exit $status
