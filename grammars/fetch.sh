#!/bin/sh
# Brings in the tree-sitter runtime and the CUDA grammar as pinned, checksummed
# npm tarballs and unpacks the C sources we compile into build/third_party.
#   fetch.sh PINS OUTDIR
# Tarballs are cached in $DIRIGO_NPM_CACHE (default ~/.cache/dirigo/npm), so an
# offline rebuild works once they have been fetched.
set -eu
pins=$1 out=$2
cache=${DIRIGO_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dirigo/npm}
mkdir -p "$cache" "$out"
grep -v '^#' "$pins" | while read -r name ver sum; do
  [ -n "$name" ] || continue
  tgz="$cache/$name-$ver.tgz"
  if [ ! -f "$tgz" ]; then
    command -v npm >/dev/null || { echo "fetch.sh: npm is needed to fetch $name@$ver (or put $name-$ver.tgz in $cache)" >&2; exit 1; }
    (cd "$cache" && npm pack --silent "$name@$ver" >/dev/null)
  fi
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  if [ "$got" != "$sum" ]; then
    echo "fetch.sh: checksum mismatch for $tgz: got $got, pinned $sum" >&2
    rm -f "$tgz"; exit 1
  fi
  rm -rf "$out/$name"; mkdir -p "$out/$name"
  tar xzf "$tgz" -C "$out/$name" --strip-components=1
done
