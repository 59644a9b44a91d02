#!/bin/sh
# pack-clone.sh — run HERE before a GPU run on what is committed: a clean
# clone of HEAD, configured with CUDA and built, then carry-libs.sh --dirigo
# --pack into $DEVCARRY (default .devcarry-clone in this checkout), so the
# device machine runs exactly the commit (not the working tree):
#   sh t/gpu/pack-clone.sh            # ~4 min on 2 cores
#   then on the device, carry [".devcarry-clone"]:
#   tar -xJf .devcarry-clone/pack.tar.xz && sh t/gpu/fuzz-device.sh --quick
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
D=${DEVCARRY:-$root/.devcarry-clone}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
git clone -q "$root" "$w/src"
cd "$w/src"
./autogen.sh >/dev/null 2>&1
mkdir build-gpu && cd build-gpu
../configure -q
make -j"$(nproc)" >/dev/null 2>&1 || make -j"$(nproc)"
cd ..
DEVCARRY=$D sh t/gpu/carry-libs.sh --dirigo --pack "$w/src/build-gpu"
echo "pack-clone: $(git log --oneline -1 | cut -c1-72) -> $D/pack.tar.xz"
