#!/bin/sh
# setup.sh — from a fresh clone to a built ./build/dirigo on Debian 12:
# installs the system packages it lacks, fetches the pinned tree-sitter
# sources (npm pack, checksummed), configures and builds.
set -eu
cd "$(dirname "$0")"
pkgs="build-essential autoconf automake libtool pkg-config libz3-dev liblua5.4-dev lua5.4
      libncurses-dev tmux valgrind"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
# npm may come from Node's own packages rather than Debian's: ask for the command.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
  echo "setup: installing:$missing"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi
[ -x configure ] && [ configure -nt configure.ac ] || ./autogen.sh >/dev/null 2>&1
mkdir -p build
cd build
[ -f Makefile ] || ../configure -q
make -j"$(nproc)" >/dev/null
echo "setup: built $(pwd)/dirigo"
