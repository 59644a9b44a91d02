#!/bin/sh
# device-run.sh — run ON THE GPU MACHINE, in the repo root of the carried tree
# (after t/gpu/carry-libs.sh here; carry [".devcarry"]):
#   sh t/gpu/device-run.sh [--no-bench]
# Runs the GPU tests (avail, compile, run: the session scenario on the real
# GPU) and the benchmark with .devcarry/lib on LD_LIBRARY_PATH, prints a
# summary, copies the logs to $OUT when set, and exits 1 on any failure.
# Programs come from .devcarry/bin, else build-gpu; if they cannot start and
# carry-libs.sh ran with --relink, the tests are relinked here with cc.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
D=$root/.devcarry
# carry-libs.sh --pack: unpack first
[ -f "$D/pack.tar.xz" ] && [ ! -d "$D/bin" ] && tar -xJf "$D/pack.tar.xz" -C "$root"
bench=yes
[ "${1:-}" = --no-bench ] && bench=no
logs=$(mktemp -d)

# --- where CUDA is ----------------------------------------------------------
cuda=${DIRIGO_CUDA_DIR:-/usr/local/cuda}
if [ ! -d "$cuda/include" ] && command -v nvcc >/dev/null 2>&1; then
  cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
fi
export DIRIGO_CUDA_DIR=$cuda
export LD_LIBRARY_PATH="$D/lib:$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export DG_SRCDIR=$root
export DIRIGO_DATADIR=$root                 # lua/ops for the problem specs
# start cold (the tests make their own too), but under make check the
# build's shared cache (DG_CUBIN_SHARED: Makefile.am; these tests' modules are
# compiled there once for every test and CI stage)
export DIRIGO_CUBIN_CACHE="${DG_CUBIN_SHARED:-$logs/cubin}"
echo "== machine"
uname -srm
if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi -L; else echo "nvidia-smi: none"; fi
gpu_here=no
{ [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; } && gpu_here=yes
echo "CUDA toolkit: $cuda ($(ls "$cuda"/lib64/libnvrtc.so.* 2>/dev/null | head -1))"

# --- the programs ------------------------------------------------------------
tests=${DG_GPU_TESTS:-"avail compile run problem ref cmp gen env"}   # DG_GPU_TESTS="env cmp": a subset
if [ -n "${DG_BUILDDIR:-}" ] && [ -x "$DG_BUILDDIR/t/gpu/run.t" ]; then   # make check (t/gpu/scripts.sh)
  bin=$DG_BUILDDIR/t/gpu; benchp=$DG_BUILDDIR/bench/gpu_bench
elif [ -x "$D/bin/run.t" ]; then
  bin=$D/bin; benchp=$D/bin/gpu_bench
elif [ -x build-gpu/t/gpu/run.t ]; then
  bin=$root/build-gpu/t/gpu; benchp=$root/build-gpu/bench/gpu_bench
else
  bin=; benchp=
fi
runs() { [ -n "$bin" ] && "$bin/avail.t" >/dev/null 2>&1; }
if [ -n "${DG_DEVICE_RELINK:-}" ] || ! runs; then   # DG_DEVICE_RELINK=1 forces it
  echo "== the carried programs do not start here${bin:+ ($bin)}; relinking"
  [ -n "$bin" ] && ldd "$bin/avail.t" | grep -i 'not found'
  if [ -f "$D/lib/libdirigo.a" ] && command -v cc >/dev/null 2>&1; then
    bin=$D/rebuilt; mkdir -p "$bin"
    for t in $tests; do
      cc -std=gnu11 -O2 -Isrc -I"$D/lib" -I"$cuda/include" -DDG_DATADIR="\"$root\"" \
        -o "$bin/$t.t" "t/gpu/$t.c" "$D/lib/libdirigo_lua.a" "$D/lib/libdirigo.a" "$D/lib/libtsrt.a" \
        -L"$D/lib" -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lnvrtc -lcudart -llua5.4 -lz3 \
        -ldl -lrt -lm -lpthread || echo "relink of $t failed"
    done
    cc -std=gnu11 -O2 -Isrc -I"$D/lib" -DDG_DATADIR="\"$root\"" -o "$bin/gpu_bench" bench/gpu_bench.c \
      "$D/lib/libdirigo.a" "$D/lib/libtsrt.a" -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" \
      -lnvrtc -lcudart -ldl -lrt -lm -lpthread && benchp=$bin/gpu_bench
  else
    echo "no relink possible: run t/gpu/carry-libs.sh --relink here and carry .devcarry"
    exit 2
  fi
fi

# --- run and summarise -------------------------------------------------------
status=0
summary=""
for t in $tests; do
  echo "== $t.t"
  timeout 600 "$bin/$t.t" >"$logs/$t.log" 2>&1
  rc=$?
  cat "$logs/$t.log"
  pass=$(grep -c '^ok' "$logs/$t.log")
  fail=$(grep -c '^not ok' "$logs/$t.log")
  skip=$(grep -c '^1\.\.0 # SKIP' "$logs/$t.log")
  plan=$(grep -c '^1\.\.[0-9]' "$logs/$t.log")
  verdict=PASS
  [ "$skip" -gt 0 ] && verdict=SKIP
  # on a machine with a GPU, a skip is a failure: the GPU was not found
  [ "$skip" -gt 0 ] && [ $gpu_here = yes ] && { verdict=FAIL; status=1; }
  if [ "$fail" -gt 0 ] || [ "$rc" -ne 0 ] || [ "$plan" -eq 0 ]; then verdict=FAIL; status=1; fi
  summary="$summary$(printf '%-12s %-5s %4s ok %4s not-ok  rc=%s' "$t.t" "$verdict" "$pass" "$fail" "$rc")
"
done
# check's witness replay on the GPU: $DIRIGO (make check sets it), else the
# carried dirigo (carry-libs.sh --dirigo)
dg=${DIRIGO:-}
[ -n "$dg" ] || dg=$D/bin/dirigo
if [ -x "$dg" ]; then
  echo "== check-replay.sh"
  DIRIGO=$dg timeout 300 sh t/gpu/check-replay.sh >"$logs/check-replay.log" 2>&1
  rc=$?
  cat "$logs/check-replay.log"
  pass=$(grep -c '^ok' "$logs/check-replay.log"); fail=$(grep -c '^not ok' "$logs/check-replay.log")
  verdict=PASS; { [ "$fail" -gt 0 ] || [ $rc -ne 0 ]; } && { verdict=FAIL; status=1; }
  summary="$summary$(printf '%-12s %-5s %4s ok %4s not-ok  rc=%s' check-replay "$verdict" "$pass" "$fail" "$rc")
"
fi
if [ $bench = yes ] && [ -n "$benchp" ]; then
  echo "== gpu_bench"
  timeout 600 "$benchp" 2>&1 | tee "$logs/gpu_bench.log"
fi
echo "== summary"
printf '%s' "$summary"
if [ $status != 0 ]; then echo "GPU tests FAILED"
elif [ $gpu_here = no ]; then echo "passed, but no GPU here: the GPU scenario skipped"
else echo "all GPU tests passed on the GPU"; fi
if [ -n "${OUT:-}" ]; then
  cp "$logs"/*.log "$OUT"/ 2>/dev/null
  printf '%s' "$summary" >"$OUT/summary.txt"
fi
rm -rf "$logs"
exit $status
