#!/bin/sh
# The engine (libdirigo) must not include curses or Lua: its clients do.
# Convention: clients are src/tui_*, src/lua_*, src/cli_* and src/dirigo.c.
src=${DG_SRCDIR:-.}
n=0; bad=0
for f in "$src"/src/*.c "$src"/src/*.h; do
  case ${f##*/} in tui_*|lua_*|cli_*|dirigo.c) continue ;; esac
  n=$((n+1))
  if grep -nE '#[[:space:]]*include[[:space:]]*[<"](n?curses|lua|lauxlib|lualib)' "$f" >/dev/null; then
    echo "not ok $n - ${f##*/} includes curses or Lua"; bad=1
  else
    echo "ok $n - ${f##*/} is engine-clean"
  fi
done
echo "1..$n"
exit $bad
