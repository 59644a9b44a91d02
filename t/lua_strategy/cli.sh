#!/bin/sh
# t/lua_strategy/cli.sh — Lua fuzz strategies through the CLI: the shipped ones
# find seeded bugs and replay, users' strategies load from XDG_CONFIG_HOME, a
# broken file is reported at file:line and the rest keep working. TAP.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
RC=${TMPDIR:-/tmp}/dg_rc.$$
tmp=${TMPDIR:-/tmp}/dg_lstrat_$$
mkdir -p "$tmp/cfg/dirigo/strategies"
export XDG_CONFIG_HOME="$tmp/cfg"
trap 'rm -rf "$tmp" "$RC"' EXIT

# --- shipped strategies ---------------------------------------------------------
out=$(run_dirigo fuzz "$S/softmax/softmax_warp_regs_padzero.lua" --strategy tail-sweep --cases 20)
is "$(cat "$RC")" 1 "tail-sweep finds the pad-zero bug (exit 1)"
like "$out" "strategy tail-sweep" "the campaign names the Lua strategy"
like "$out" "FAIL at case" "the failure is reported"
w=$(printf '%s\n' "$out" | sed -n 's/.*replay: dirigo replay [^ ]* //p')
like "$w" "^fuzz:tail-sweep:1:[0-9]+@N=[0-9]+,C=[0-9]+$" "the witness names tail-sweep and the shrunk sizes"
r1=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" "$w")
is "$(cat "$RC")" 1 "replay of the tail-sweep witness reproduces the failure"
r2=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" "$w")
d1=$(printf '%s\n' "$r1" | sed -n 's/.*inputs digest //p')
d2=$(printf '%s\n' "$r2" | sed -n 's/.*inputs digest //p')
ok "[ -n '$d1' ] && [ '$d1' = '$d2' ]" "replay regenerates the same inputs (digest $d1)"
like "$r1" "strategy tail-sweep" "replay runs the Lua strategy's case"
# the unshrunk witness of case 1 (negative values) replays too
r3=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" "fuzz:tail-sweep:1:1")
like "$r3" "shape N=5 C=1 negative" "case 1 of tail-sweep: the first tail with negative values"

out=$(run_dirigo fuzz "$S/softmax/softmax_warp_regs.lua" --strategy tail-sweep --cases 6 -v | tr '\n' ' ')
is "$(cat "$RC")" 0 "tail-sweep passes the correct kernel"
like "$out" "case 2 +N=5 C=65 max-last.*case 4 +N=5 C=63 max-last" "tails of the block (64): 1, 64+1, 63, …"

out=$(run_dirigo fuzz "$S/softmax/softmax_warp_regs_padzero.lua" --strategy primes --cases 10)
is "$(cat "$RC")" 1 "primes finds the pad-zero bug"
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy primes --cases 6 -v)
is "$(cat "$RC")" 0 "primes passes the correct kernel"
sizes=$(printf '%s\n' "$out" | sed -n 's/.* N=\([0-9]*\) C=\([0-9]*\) .*/\1 \2/p' | tr '\n' ' ')
bad=0; for v in $sizes; do
  i=2; while [ $((i * i)) -le "$v" ]; do [ $((v % i)) = 0 ] && bad=1; i=$((i + 1)); done
  [ "$v" -lt 2 ] && bad=1
done
ok "[ -n '$sizes' ] && [ $bad = 0 ]" "primes gives only prime sizes ($sizes)"

out=$(run_dirigo fuzz 2>&1)
like "$out" "strategies:.* tail-sweep" "usage lists the Lua strategies"

# --- a user's strategies: the documented example, a broken file, errors -----------
D=$tmp/cfg/dirigo/strategies
sed -n '/^-- begin example/,/^-- end example/p' "$DG_SRCDIR/doc/strategies.md" > "$D/one_each.lua"
printf 'return strategy "broken" {\n  help = "x",\n  gen = function(space, k rng) end,\n}\n' > "$D/broken.lua"
printf 'return strategy "badvalues" {\n  help = "a typo in a distribution",\n  gen = function(space, k, rng)\n    return { values = "max_last" }\n  end,\n}\n' > "$D/badvalues.lua"
printf 'return strategy "crash" {\n  help = "calls what the sandbox leaves out",\n  gen = function(space, k, rng)\n    return { sizes = { C = os.time() } }\n  end,\n}\n' > "$D/crash.lua"
printf 'return strategy "loop" {\n  help = "never returns",\n  gen = function(space, k, rng)\n    while true do end\n  end,\n}\n' > "$D/loop.lua"
printf 'return strategy "boundary" { help = "clash", gen = function() end }\n' > "$D/clash.lua"
printf 'return strategy "primes" { help = "mine", gen = function(space, k, rng) return { sizes = { C = 7 } } end }\n' > "$D/myprimes.lua"

out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy boundary --cases 4 2>&1)
is "$(cat "$RC")" 0 "a broken strategy file does not stop the built-ins"
like "$out" "strategies/broken.lua:3:[0-9]+: error: .*expected" "the broken file is reported at file:line"
like "$out" "strategies/clash.lua:1:1: error: strategy 'boundary' is built in" "a clash with a built-in name is an error"
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy one-each --cases 4 -v 2>/dev/null)
is "$(cat "$RC")" 0 "the documented example loads from XDG_CONFIG_HOME and runs"
like "$out" "case 0 +N=1 C=[0-9]+ normal" "example: case 0 sets the first size to 1"
like "$out" "case 1 +N=[0-9]+ C=1 uniform" "example: case 1 sets the second size to 1"

out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy badvalues --cases 2 2>&1)
like "$out" "badvalues.lua:3: error: strategy 'badvalues', case 0: unknown value distribution 'max_last' \(known: normal, " "an unknown distribution names the file:line of gen and the known ones"
is "$(cat "$RC")" 3 "a strategy that gives only errors: exit 3"
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy crash --cases 1 2>&1)
like "$out" "crash.lua:4: error: strategy 'crash': .*'os'" "no os in the sandbox; a runtime error names file:line"
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy loop --cases 1 2>&1)
like "$out" "loop.lua:[34]: error: strategy 'loop': gen runs too long" "an endless gen is stopped, at its line"
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy primes --cases 2 -v 2>&1)
like "$out" "case 1 +N=[0-9]+ C=7 normal" "a user's strategy shadows the shipped one of the same name"
out=$(run_dirigo replay "$S/softmax/softmax_warp.lua" "fuzz:badvalues:1:0" 2>&1)
is "$(cat "$RC")" 2 "replay of a broken strategy's witness is refused"
like "$out" "badvalues.lua:3: error" "with the strategy's error"

# --- --evaluate: one column per strategy, Lua ones included -----------------------
mkdir -p "$tmp/ev"
for f in softmax_warp softmax_warp_regs_padzero; do
  ln -s "$S/softmax/$f.lua" "$tmp/ev/$f.lua"; ln -s "$S/softmax/$f.cu" "$tmp/ev/$f.cu"
done
rm -f "$D"/*.lua
out=$(run_dirigo fuzz --evaluate "$tmp/ev" --cases 3)
like "$out" "^tail-sweep +100.0% +0.0%" "--evaluate scores tail-sweep"
like "$out" "^primes +100.0% +0.0%" "--evaluate scores primes"
nst=$(run_dirigo fuzz 2>&1 | sed -n 's/^strategies://p' | wc -w)
like "$out" "softmax_warp_regs_padzero.lua +pad-zero-not-neginf +([-+!.] ){$((nst - 1))}[-+!.]$" "one column per strategy ($nst: built-in and Lua)"
like "$out" "^pow2-edge +100.0% +0.0%" "--evaluate scores pow2-edge"
done_testing
