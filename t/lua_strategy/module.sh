#!/bin/sh
# t/lua_strategy/module.sh — fuzzing from the dirigo module: module.lua, the
# strategies' load errors as seen by scripts, and the example session script
# samples/scripts/fuzz_session.lua under `dirigo run`. TAP.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
RC=${TMPDIR:-/tmp}/dg_rc.$$
tmp=${TMPDIR:-/tmp}/dg_lmod_$$
mkdir -p "$tmp/cfg/dirigo/strategies"
export XDG_CONFIG_HOME="$tmp/cfg"
trap 'rm -rf "$tmp" "$RC"' EXIT

out=$(run_dirigo run "$DG_SRCDIR/t/lua_strategy/fuzz_module.lua" "$DG_SRCDIR")
printf '%s\n' "$out" | grep -v '^1\.\.' | sed "s/^\(not \)\{0,1\}ok [0-9]* - /&fuzz_module.lua: /" > "$tmp/tap"
while IFS= read -r line; do
  case "$line" in
    ok*) n=$((n + 1)); echo "ok $n - ${line#ok * - }";;
    "not ok"*) n=$((n + 1)); failed=1; echo "not ok $n - ${line#not ok * - }";;
    *) echo "$line";;
  esac
done < "$tmp/tap"
is "$(cat "$RC")" 0 "fuzz_module.lua exits 0"
ok "[ $(grep -c '^ok' "$tmp/tap") -ge 25 ]" "fuzz_module.lua ran all its tests"

printf 'return strategy "half" {\n  help = "h",\n  gen = 42,\n}\n' > "$tmp/cfg/dirigo/strategies/half.lua"
out=$(run_dirigo run -e 'local l, e = dirigo.strategies(); local t = {}; for _, s in ipairs(l) do t[#t + 1] = s.name end; io.write(table.concat(t, ","), "\n", e)')
like "$out" "^regular,.*,primes,tail-sweep$" "scripts still see the good strategies"
like "$out" "strategies/half.lua:[0-9]+:[0-9]+: error: strategy 'half': gen must be a function" "and the broken file's error at file:line"
rm -f "$tmp/cfg/dirigo/strategies/half.lua"

out=$(run_dirigo run "$DG_SRCDIR/samples/scripts/fuzz_session.lua")
is "$(cat "$RC")" 1 "fuzz_session.lua: a bug found, exit 1"
like "$out" "^boundary +built-in +[0-9]+ +0 +1 " "fuzz_session.lua: a row for boundary"
like "$out" "^tail-sweep +lua +[0-9]+ +0 +1 +N=5 C=1 max-last .* fuzz:tail-sweep:1:0@N=1,C=1$" "fuzz_session.lua: a row for tail-sweep"
like "$out" "^replay fuzz:boundary:1:[0-9]+@N=[0-9]+,C=[0-9]+: fail at" "fuzz_session.lua: the witness replays"
out=$(run_dirigo run "$DG_SRCDIR/samples/scripts/fuzz_session.lua" "$DG_SRCDIR/samples/softmax/softmax_warp.lua" primes regular)
is "$(cat "$RC")" 0 "fuzz_session.lua on a correct kernel: exit 0"
like "$out" "^primes +lua +24 +24 +0 " "fuzz_session.lua: other strategies by argument"
done_testing
