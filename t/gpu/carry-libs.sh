#!/bin/sh
# carry-libs.sh — run HERE, before a GPU run: gathers into .devcarry/ (ignored
# by git) what t/gpu/device-run.sh needs on the GPU machine, which has CUDA 13
# but no Z3 or Lua:
#   .devcarry/bin/  the GPU test programs and the benchmark (stripped);
#                   with --dirigo also the dirigo binary
#   .devcarry/lib/  libz3.so*, liblua5.4.so* and every other non-system .so
#                   those programs need (one copy each, symlinks for aliases);
#                   with --relink also libdirigo.a + libtsrt.a + config.h, so
#                   device-run.sh can relink the tests there if they don't run
# Then run on the device with carry [".devcarry"] (build-gpu itself is over
# the 64 MiB that travels):  sh t/gpu/device-run.sh
# (t/gpu/ref.t and, with --dirigo, check-replay.sh run there too)
# usage: t/gpu/carry-libs.sh [--dirigo] [--relink] [--pack] [BUILD_DIR]   (default: build-gpu)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
with_dirigo=no relink=no pack=no
while [ $# -gt 0 ]; do
  case $1 in
    --dirigo) with_dirigo=yes ;;
    --pack) pack=yes ;;
    --relink) relink=yes ;;
    *) break ;;
  esac
  shift
done
B=${1:-$root/build-gpu}
case $B in /*) ;; *) B=$root/$B ;; esac
D=${DEVCARRY:-$root/.devcarry}   # DEVCARRY=/work/main/.devcarry-NAME: one per engineer
case $D in /*) ;; *) D=$root/$D ;; esac
progs="t/gpu/compile.t t/gpu/avail.t t/gpu/run.t t/gpu/problem.t t/gpu/ref.t t/gpu/fused.t t/gpu/cmp.t t/gpu/gen.t t/gpu/env.t bench/gpu_bench t/gpu/agree.t bench/gpu_fuzz_bench"
grep -q '^#define DG_HAVE_CUDA 1' "$B/config.h" || { echo "carry-libs: $B was configured without CUDA" >&2; exit 2; }
[ $with_dirigo = yes ] && progs="$progs dirigo"
log=$(mktemp)
make -C "$B" $progs >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
rm -f "$log"
rm -rf "$D"
mkdir -p "$D/bin" "$D/lib"
for p in $progs; do
  cp "$B/$p" "$D/bin/"
  strip "$D/bin/${p##*/}" 2>/dev/null || true
done
[ $relink = no ] || cp "$B/libdirigo.a" "$B/libdirigo_lua.a" "$B/libtsrt.a" "$B/config.h" "$D/lib/"

# Libraries the GPU machine has itself (libc family, the C++ runtime, which
# must not be replaced by an older one, and CUDA's own) stay behind.
system_lib() {
  case $1 in
    linux-vdso*|ld-linux*|libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*) return 0 ;;
    libgcc_s.so*|libstdc++.so*|libcuda.so*|libcudart.so*|libnvrtc*|libnvJitLink*) return 0 ;;
  esac
  return 1
}
copy_lib() {   # name path: one real file per library, its other names link to it
  system_lib "$1" && return 0
  [ -e "$D/lib/$1" ] && return 0
  real=$(readlink -f "$2")
  base=${real##*/}
  [ -e "$D/lib/$base" ] || cp "$real" "$D/lib/$base"
  [ "$1" = "$base" ] || ln -s "$base" "$D/lib/$1"
}
for p in "$D"/bin/*; do
  ldd "$p" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' |
    while read -r name path; do copy_lib "$name" "$path"; done
done
# Z3 and Lua even where no program above links them yet (dirigo will).
for pat in 'libz3\.so' 'liblua5\.4\.so'; do
  ldconfig -p | awk -v pat="$pat" '$1 ~ pat && $NF ~ /^\// { print $1, $NF }' |
    while read -r name path; do copy_lib "$name" "$path"; done
done
missing=$(for p in "$D"/bin/*; do LD_LIBRARY_PATH="$D/lib" ldd "$p" | grep 'not found' || true; done)
[ -z "$missing" ] || { echo "carry-libs: unresolved: $missing" >&2; exit 1; }
echo "carry-libs: $(ls "$D/bin" | wc -l) programs, $(ls "$D/lib" | wc -l) files in .devcarry/lib ($(du -sh "$D" | cut -f1))"
ls "$D/lib"
# --pack: the whole of it as .devcarry/pack.tar.xz alone (about 9 MiB instead of
# 63: with --dirigo the plain folder no longer fits the 64 MiB that travel);
# device-run.sh and fuzz-device.sh unpack it there.
if [ $pack = yes ]; then
  t=$(mktemp -d)
  tar -cJf "$t/pack.tar.xz" -C "$(dirname "$D")" --transform "s,^$(basename "$D"),.devcarry," "$(basename "$D")"
  rm -rf "$D" && mkdir -p "$D" && mv "$t/pack.tar.xz" "$D/" && rmdir "$t"
  echo "carry-libs: packed into $D/pack.tar.xz (unpacks as .devcarry/) ($(du -sh "$D/pack.tar.xz" | cut -f1))"
fi
