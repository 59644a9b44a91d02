#!/bin/sh
# fuzz-device.sh — run ON THE GPU MACHINE (after `t/gpu/carry-libs.sh --dirigo`
# here; carry [".devcarry"]): the GPU backend in fuzz campaigns, in one batch:
#   1. bench/gpu_fuzz_bench (cases/s, spec and realistic sizes) and
#      bench/torch_harness.py (the PyTorch harness, and the comparison table)
#   2. t/gpu/agree-all.sh: the emulator vs the GPU on every sample (the table of
#      doc/gpu-agreement.md)
#   3. replay on the GPU: a witness replays with the same input digest on both
#      backends, and a GPU campaign's printed replay command reproduces it
#   4. int32 overflow at a size only the GPU reaches (embedding_int32 with a
#      2.3 G-element table: ~60 GB of host memory)
#   5. t/gpu/device-run.sh --no-bench (the GPU layer's own tests)
#   sh t/gpu/fuzz-device.sh [--quick]      (--quick: fewer cases everywhere)
# STEPS="bench agree replay overflow tests" (the default) picks the steps.
# REAL_CASES=N: cases a realistic bench row (default 128: four requests of 32,
# so the row sees the next request sent while one runs, as a campaign of
# hundreds does; session 12 — 32 until then, the bench's own default is 12).
# Logs go to $OUT (else ./fuzz-device-out). Exit 1 if a test failed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
D=$root/.devcarry
# carry-libs.sh --pack: unpack first
[ -f "$D/pack.tar.xz" ] && [ ! -d "$D/bin" ] && tar -xJf "$D/pack.tar.xz" -C "$root"
out=${OUT:-$root/fuzz-device-out}
mkdir -p "$out"
quick=no
[ "${1:-}" = --quick ] && quick=yes
cuda=${DIRIGO_CUDA_DIR:-/usr/local/cuda}
if [ ! -d "$cuda/include" ] && command -v nvcc >/dev/null 2>&1; then
  cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
fi
export DIRIGO_CUDA_DIR=$cuda
export LD_LIBRARY_PATH="$D/lib:$cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export DG_SRCDIR=$root DIRIGO_DATADIR=$root
export DIRIGO_CUBIN_CACHE="$out/cubin"
B=$D/bin
status=0
say() { echo "== $*"; }
ncpu=$(nproc 2>/dev/null || echo 4)
steps=${STEPS:-bench agree replay overflow tests}
want() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
nvidia-smi -L 2>/dev/null

# --- 1. throughput ------------------------------------------------------------
if want bench; then
say "gpu_fuzz_bench"
cases=200; [ $quick = yes ] && cases=40
real_cases=${REAL_CASES:-128}
timeout 300 "$B/gpu_fuzz_bench" --cases $cases --real-cases $real_cases --json "$out/gpu_fuzz.json" 2>&1 \
  | tee "$out/gpu_fuzz_bench.log"
say "torch_harness"
timeout 120 python3 bench/torch_harness.py --cases $cases --json "$out/torch.json" --dirigo "$out/gpu_fuzz.json" \
  2>&1 | tee "$out/torch_harness.log"
# where a realistic case's time goes: every launch timed (campaigns time only the kernels under test)
say "gpu_fuzz_bench --realistic-only, DIRIGO_GPU_LAUNCH_EVENTS=all (the split)"
DIRIGO_GPU_LAUNCH_EVENTS=all timeout 200 "$B/gpu_fuzz_bench" --cases $cases --real-cases $real_cases --realistic-only 2>&1 \
  | tee "$out/gpu_fuzz_split.log"
fi

# --- 2. agreement ---------------------------------------------------------------
if want agree; then
say "agree-all.sh"
acases=16; [ $quick = yes ] && acases=6
AGREE=$B/agree.t AGREE_TIMEOUT=${AGREE_TIMEOUT:-50} \
  timeout 240 sh t/gpu/agree-all.sh -j $((ncpu > 2 ? ncpu - 2 : 1)) --cases $acases --realistic 1 --out "$out" \
  >"$out/agree.tap" 2>&1 || status=1
grep -c '^ok' "$out/agree.tap" | sed 's/^/agree: ok /'
grep -A3 '^not ok' "$out/agree.tap"
cat "$out/agree.md" 2>/dev/null
fi

# --- 3. replay on the GPU ---------------------------------------------------------
n=0
check() {   # check NAME COND...
  name=$1; shift
  n=$((n + 1))
  if "$@"; then echo "ok $n - $name"; else echo "not ok $n - $name"; status=1; fi
}
digest() { sed -n 's/.*inputs digest \([0-9a-f]*\).*/\1/p' "$1"; }
has_gpu_flag() { case $1 in *"--backend gpu"*) return 0 ;; esac; return 1; }
if want replay; then
say "replay"
{
  p=samples/softmax/softmax_block_uninit.lua w=fuzz:boundary+adversarial:1:1
  "$B/dirigo" replay $p $w >"$out/replay-cpu.log" 2>&1
  "$B/dirigo" replay $p $w --backend gpu >"$out/replay-gpu.log" 2>&1
  cat "$out/replay-cpu.log" "$out/replay-gpu.log"
  check "an emulator witness replays on the GPU with the same input digest" \
    test -n "$(digest "$out/replay-cpu.log")" -a "$(digest "$out/replay-cpu.log")" = "$(digest "$out/replay-gpu.log")"
  check "the GPU replay says which backend" grep -q 'backend gpu' "$out/replay-gpu.log"
  p=samples/elementwise/residual_add_gridfloor.lua
  "$B/dirigo" fuzz $p --backend gpu --strategy boundary --cases 8 >"$out/fuzz-gpu.log" 2>&1
  cat "$out/fuzz-gpu.log"
  cmd=$(sed -n 's/^  replay: dirigo replay //p' "$out/fuzz-gpu.log")
  check "a GPU campaign prints a replay command for the GPU" has_gpu_flag "$cmd"
  # shellcheck disable=SC2086
  "$B/dirigo" replay $cmd >"$out/replay-gpu2.log" 2>&1
  cat "$out/replay-gpu2.log"
  check "which replays the failure on the GPU" grep -Eq '^  (fail|finding):' "$out/replay-gpu2.log"
  echo "1..$n"
} 2>&1 | tee "$out/replay.tap"
grep -q '^not ok' "$out/replay.tap" && status=1
fi

# --- 4. int32 overflow, only at GPU sizes -------------------------------------------
if want overflow; then
say "overflow"
# ids * D >= 2^31 for ids >= 524288: about 6% of the 64 ids
w=fuzz:adversarial:1:0@N=64,V=560000,D=4096
t0=$(date +%s)
timeout 200 "$B/dirigo" replay samples/embedding/embedding_int32.lua $w --backend gpu \
  --max-elems 4294967296 >"$out/overflow.log" 2>&1
echo "rc $? after $(($(date +%s) - t0)) s" >>"$out/overflow.log"
cat "$out/overflow.log"
if [ "${OVERFLOW_CONTROL:-no}" = yes ]; then   # the correct kernel at the same size
  t0=$(date +%s)
  timeout 200 "$B/dirigo" replay samples/embedding/embedding_gather.lua $w --backend gpu \
    --max-elems 4294967296 >"$out/overflow-ok.log" 2>&1
  echo "rc $? after $(($(date +%s) - t0)) s" >>"$out/overflow-ok.log"
  cat "$out/overflow-ok.log"
fi
fi
# --- 5. the GPU layer's tests ---------------------------------------------------------
if want tests; then
say "device-run.sh --no-bench"
# (OUT= : its per-test logs stay out of $out; device-run.log has them all)
OUT= timeout 330 sh t/gpu/device-run.sh --no-bench >"$out/device-run.log" 2>&1 || status=1
tail -8 "$out/device-run.log"
fi
rm -rf "$out/cubin"
# The device tool brings back at most 8 files from $OUT: beyond 6, everything but
# the two bench logs travels as one archive (logs.tar.gz).
if [ "$(find "$out" -type f | wc -l)" -gt 6 ]; then
  tmp=$(mktemp)
  if (cd "$out" && tar -czf "$tmp" --exclude=./gpu_fuzz_bench.log --exclude=./torch_harness.log .); then
    find "$out" -type f ! -name gpu_fuzz_bench.log ! -name torch_harness.log -delete
    find "$out" -mindepth 1 -type d -empty -delete
    mv "$tmp" "$out/logs.tar.gz"
  fi
fi
say "status $status"
exit $status
