#!/bin/sh
# t/lua_api/api.sh — the dirigo module and `dirigo run`, driven through the binary. TAP.
: "${DIRIGO:=./dirigo}" "${DG_SRCDIR:=.}"
export XDG_CONFIG_HOME=/nonexistent
"$DIRIGO" run "$DG_SRCDIR/t/lua_api/module_api.lua" "$DG_SRCDIR" | grep -v '^1\.\.'
n=$("$DIRIGO" run "$DG_SRCDIR/t/lua_api/module_api.lua" "$DG_SRCDIR" | grep -c '^\(not \)\?ok')
rc=0
check() {  # name, condition result
  n=$((n + 1))
  if [ "$2" = 0 ]; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
"$DIRIGO" run "$DG_SRCDIR/t/lua_api/module_api.lua" "$DG_SRCDIR" >/dev/null; check "module_api.lua passes (exit 0)" $?
"$DIRIGO" run -e 'return 1' >/dev/null; [ $? = 1 ]; check "a script's returned integer is the exit code" $?
err=$("$DIRIGO" run -e 'return 256' 2>&1); rc=$?
[ $rc = 2 ] && echo "$err" | grep -q "returned 256: an exit status is 0 to 255"; check "a returned integer past 255 is refused, not wrapped to 0 (exit 2)" $?
out=$("$DIRIGO" run -e 'print(arg[0], arg[1], arg[2], select("#", ...))' a b); [ "$out" = "-e	a	b	2" ]; check "arg and ... hold the arguments" $?
"$DIRIGO" run /nonexistent/script.lua 2>/dev/null; [ $? = 2 ]; check "missing script: exit 2" $?
"$DIRIGO" run 2>/dev/null; [ $? = 2 ]; check "no script: usage, exit 2" $?
tmp=${TMPDIR:-/tmp}/dg_api_$$.lua
printf 'local function f() error("bad thing") end\nf()\n' > "$tmp"
err=$("$DIRIGO" run "$tmp" 2>&1); rc=$?
[ $rc = 2 ]; check "script error: exit 2" $?
echo "$err" | grep -q "dg_api_$$.lua:1: bad thing"; check "error names file:line" $?
echo "$err" | grep -q "dg_api_$$.lua:2: in main chunk"; check "traceback keeps the script's frames" $?
echo "$err" | grep -q '\[C\]'; [ $? = 1 ]; check "traceback has no C frames" $?
rm -f "$tmp"
out=$("$DIRIGO" run -e 'local p, e = dirigo.load(arg[1]); io.write(e)' "$DG_SRCDIR/t/data/specs/bad_noop.lua")
echo "$out" | grep -q "bad_noop.lua:3:13: error: unknown op 'softmx'"; check "spec diagnostics reach scripts" $?
"$DIRIGO" help | grep -q "^  dirigo run"; check "run is listed in help" $?

# op library locations: the user's config dir first, DIRIGO_DATADIR for the shipped ones
tmpd=${TMPDIR:-/tmp}/dg_ops_$$
mkdir -p "$tmpd/cfg/dirigo/ops" "$tmpd/data/lua/ops"
printf 'return op "mine" { inputs = { x = {"N"} }, outputs = { y = {"N"} }, sizes = { N = {1, 2} },\n  ref = function(T, i) return 3 * T.x[i] end }\n' > "$tmpd/cfg/dirigo/ops/mine.lua"
cp "$DG_SRCDIR/lua/ops/relu.lua" "$tmpd/data/lua/ops/relu.lua"
cp "$DG_SRCDIR/lua/ops/relu.lua" "$tmpd/cfg/dirigo/ops/relu.lua"
out=$(XDG_CONFIG_HOME="$tmpd/cfg" DIRIGO_DATADIR="$tmpd/data" "$DIRIGO" run -e 'io.write(table.concat(dirigo.ops(), ","), " ", dirigo.op_path("relu"))')
[ "$out" = "mine,relu $tmpd/cfg/dirigo/ops/relu.lua" ]; check "ops from XDG_CONFIG_HOME and DIRIGO_DATADIR, the user's first" $?
printf 'return problem { source = "k.cu", op = "mine", sizes = { N = 4 }, launch = "k<<<1, 4>>>(y, x, N)" }\n' > "$tmpd/p.lua"
out=$(XDG_CONFIG_HOME="$tmpd/cfg" "$DIRIGO" run -e 'local p = assert(dirigo.load(arg[1])); io.write(dirigo.ref(p, "y", 2, { inputs = { x = {1, 2, 3, 4} } }))' "$tmpd/p.lua")
[ "$out" = "9" ]; check "a user's op loads from the config dir" $?
rm -rf "$tmpd"
echo "1..$n"
