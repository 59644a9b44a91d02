#!/bin/sh
# dirigo sweep: children per problem, the journal and --resume, --fresh,
# --shard i/n covering every problem once, a hanging problem killed at the
# limit and recorded as timeout, an unloadable spec listed as such, --json,
# usage errors. Specs are copied to temp folders (the journal goes there).
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
W=$(mktemp -d "${TMPDIR:-/tmp}/dg_sweep.XXXXXX")
trap 'rm -rf "$W"' EXIT
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
mkdir -p "$W/a/elementwise" "$W/a/reduce" "$W/h" "$W/e"
for f in residual_add residual_add_gridfloor; do cp "$S/elementwise/$f.lua" "$S/elementwise/$f.cu" "$W/a/elementwise/"; done
cp "$S/reduce/mean_rows_intdiv.lua" "$S/reduce/mean_rows_intdiv.cu" "$W/a/reduce/"
J=$W/a/.dirigo/sweep.jsonl

out=$(run_dirigo sweep "$W/a" --budget 5 --jobs 2)
is "$(cat "$rcf")" 1 "seeded bugs found: exit 1"
is "$(wc -l < "$J" | tr -d ' ')" 6 "the journal has one line per problem and tool (3 x 2)"
like "$(cat "$J")" '"problem":"elementwise/residual_add_gridfloor.lua","tool":"check","options":"budget=5 limit=11.25","status":"bug"' \
  "a journal line names problem, tool, options and status"
like "$out" "^elementwise/residual_add_gridfloor.lua +grid-floors +\+ bug +[0-9.]+ s +\+ fail" \
  "the table: seeded pattern, check and fuzz verdicts with the time to the first bug"
like "$out" "^elementwise/residual_add.lua +correct +equivalent +- +pass" "a correct problem is quiet"
like "$out" "^seeded bugs found \(recall\) +2/2 +100.0%" "recall over the seeded bugs"
like "$out" "^false positives \(correct\) +0/1 +0.0%" "false positives over the correct problems"
like "$out" "^found within 120 s +2/2" "the share found within 120 s"
like "$out" "^check or fuzz +2/2 seeded bugs found, 0 false positives" "the union of both tools"
P=$W/a/elementwise/residual_add_gridfloor.lua
fw=$(grep '"tool":"fuzz"' "$J" | grep gridfloor | sed -n 's/.*"witness":"\(fuzz:[^"]*\)".*/\1/p')
cw=$(grep '"tool":"check"' "$J" | grep gridfloor | sed -n 's/.*"witness":"\([^"]*\)".*/\1/p')
run_dirigo replay "$P" "$fw" > /dev/null
is "$(cat "$rcf")" 1 "the journaled fuzz witness replays the bug ($fw)"
run_dirigo check "$P" --at "$cw" --no-journal > /dev/null
is "$(cat "$rcf")" 1 "the journaled check element is the bug again ($cw)"
like "$out" "97.3% of them found within two minutes" "beside the literature's figure"

out=$(run_dirigo sweep "$W/a" --budget 5 --jobs 2)
is "$(cat "$rcf")" 1 "a resumed sweep reports the same (exit 1)"
like "$out" "6 results from the journal, 0 runs to go" "--resume (the default) skips what the journal holds"
is "$(wc -l < "$J" | tr -d ' ')" 6 "and appends nothing"
like "$out" "^reduce/mean_rows_intdiv.lua +[a-z-]+ +\+ " "the table comes from the journal"

out=$(run_dirigo sweep "$W/a" --budget 5 --mode fuzz --strategy boundary)
like "$out" "0 results from the journal, 3 runs to go" "--strategy is part of what must match"
is "$(wc -l < "$J" | tr -d ' ')" 9 "a new strategy runs again (3 more lines)"
out=$(run_dirigo sweep "$W/a" --budget 5 --mode check --fresh)
like "$out" "0 results from the journal, 3 runs to go" "--fresh reruns"
is "$(wc -l < "$J" | tr -d ' ')" 12 "and appends"

# shards: k % n == i - 1 over the sorted list; together exactly the whole
run_dirigo sweep "$W/a" --mode fuzz --shard 1/2 --out "$W/s1.jsonl" > /dev/null
run_dirigo sweep "$W/a" --mode fuzz --shard 2/2 --out "$W/s2.jsonl" > /dev/null
p1=$(sed 's/^{"problem":"\([^"]*\)".*/\1/' "$W/s1.jsonl" | sort | tr '\n' ' ')
p2=$(sed 's/^{"problem":"\([^"]*\)".*/\1/' "$W/s2.jsonl" | sort | tr '\n' ' ')
is "$p1" "elementwise/residual_add.lua reduce/mean_rows_intdiv.lua " "shard 1/2 takes problems 0 and 2"
is "$p2" "elementwise/residual_add_gridfloor.lua " "shard 2/2 takes problem 1"
is "$(cat "$W/s1.jsonl" "$W/s2.jsonl" | wc -l | tr -d ' ')" 3 "every problem exactly once"
cat "$W/s1.jsonl" "$W/s2.jsonl" > "$W/all.jsonl"
out=$(run_dirigo sweep "$W/a" --mode fuzz --out "$W/all.jsonl")
like "$out" "3 results from the journal, 0 runs to go" "merged shard journals give the whole table without rerunning"
like "$out" "^seeded bugs found \(recall\) +2/2" "with the totals of all shards"
like "$(grep residual_add.lua "$W/all.jsonl")" '"verdict":"pass".*"reason":"[0-9]+ cases passed"' \
  "a passing campaign records its case count"

out=$(run_dirigo sweep "$W/a/" --mode fuzz --out "$W/all.jsonl")
like "$out" "3 results from the journal, 0 runs to go" "DIR with a trailing slash names problems the same way"
out=$(run_dirigo sweep "$W/a" --mode fuzz --shard 7/8 --out "$W/s7.jsonl")
is "$(cat "$rcf")" 0 "an empty shard is fine (exit 0)"
like "$out" "0 problems in this shard" "and says it has nothing"
out=$(run_dirigo sweep "$W/a" --json)
if command -v python3 > /dev/null; then
  v=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); t=d["totals"]; print(len(d["problems"]), t["check"]["found"], t["check"]["seeded"], t["fuzz"]["false_positives"], t["check_or_fuzz"]["found"], d["literature"]["checker_within_120s_pct"])')
  is "$v" "3 2 2 0 2 97.3" "--json: problems, totals and the literature's figures"
else
  like "$out" '"totals":\{"check":\{"seeded":2,"found":2' "--json totals"
fi

# a reference that never returns: the child is killed at the limit, the sweep goes on
cp "$S/elementwise/residual_add.cu" "$W/h/"
cp "$S/elementwise/residual_add.lua" "$W/h/ok.lua"
cat > "$W/h/spin.lua" <<'EOF'
return problem {
  source = "residual_add.cu",
  op = op "spin" {
    inputs = { x = {"N"}, r = {"N"} }, outputs = { y = {"N"} }, attrs = { alpha = 1.0 },
    sizes = { N = {4} },
    -- time in C, not Lua instructions: the references' instruction limit
    -- (lua_ref.c) would stop a plain `while true do end` after ~3 s
    ref = function(T, i) local k = 0; while true do k = k + #string.rep("x", 1 << 24) end end,
  },
  attrs = { alpha = 0.5 },
  sizes = { N = 4 },
  launch = "residual_add_kernel<<<1, 256>>>(y, x, r, alpha, N)",
}
EOF
printf 'return problem {\n  op = \n' > "$W/h/broken.lua"
t0=$(date +%s)
# a limit the correct problem meets even under ASan on a loaded machine
out=$(run_dirigo sweep "$W/h" --mode check --budget 1 --limit 15 --jobs 2)
t1=$(date +%s)
is "$(cat "$rcf")" 0 "timeouts and unloadable specs are results, not failures (exit 0)"
like "$(grep spin.lua "$W/h/.dirigo/sweep.jsonl")" '"status":"timeout".*"reason":"killed at the limit of 15 s"' \
  "the hanging problem is journaled as timeout"
like "$out" "^spin.lua +correct +timeout" "and listed as timeout"
like "$out" "^ok.lua +correct +equivalent" "the other problem still ran"
like "$out" "^broken.lua +does not load: .*broken.lua:[0-9]+:[0-9]+: " "an unloadable spec is listed with file:line:col"
like "$out" "^timeouts +1" "the totals count the timeout"
like "$out" "^seeded bugs found \\(recall\\) +0/0 +- " "no seeded bug: recall is '-', not 0.0%"
ok "! printf '%s' \"\$out\" | grep -q 'by construction'" "nothing found: no note about the share of what was found"
ok "[ $((t1 - t0)) -lt 60 ]" "the limit holds ($((t1 - t0)) s)"
ok "! ps ax -o args | grep -v grep | grep -q 'check $W/h/spin.lua'" "no child outlives the sweep"

# SIGTERM (a scheduler's time limit): children killed, the journal kept, the sweep ends by the signal
"$DIRIGO" sweep "$W/h" --mode check --budget 1 --limit 60 > "$W/int.out" 2>&1 &
pid=$!
sleep 2
kill -TERM $pid
wait $pid
is "$?" 143 "SIGTERM: the sweep ends by the signal"
like "$(cat "$W/int.out")" "interrupted; [0-9]+ of [0-9]+ runs are in .*: run the same command to resume" "and says how to resume"
ok "! ps ax -o args | grep -v grep | grep -q 'check $W/h/spin.lua'" "no child outlives it"

out=$(run_dirigo sweep "$W/e" 2>&1)
is "$(cat "$rcf")" 2 "a folder without specs is an input error"
like "$out" "no problem specs" "and says so"
for bad in "--jobs 0" "--shard 0/2" "--shard 3/2" "--shard 2" "--mode all" "--budget -1" "--limit x" "--bogus" "--strategy nope"; do
  # shellcheck disable=SC2086
  out=$(run_dirigo sweep "$W/a" $bad 2>&1)
  is "$(cat "$rcf")" 2 "sweep $bad: exit 2"
  like "$out" "^dirigo sweep: " "sweep $bad: a message"
done
out=$(run_dirigo sweep "$W/nope" 2>&1)
is "$(cat "$rcf")" 2 "a missing folder: exit 2"
like "$out" "nope: not a folder" "named"
out=$(run_dirigo sweep 2>&1)
is "$(cat "$rcf")" 2 "no folder: exit 2"
# an edited kernel is run again: a journal line holds the digest of the files it ran on
mkdir -p "$W/ed"
cp "$S/elementwise/residual_add.lua" "$S/elementwise/residual_add.cu" "$W/ed/"
cp "$S/elementwise/residual_add_gridfloor.lua" "$S/elementwise/residual_add_gridfloor.cu" "$W/ed/"
mkdir -p "$W/ed/sub" && sed 's|"residual_add.cu"|"../residual_add.cu"|' "$S/elementwise/residual_add.lua" > "$W/ed/sub/up.lua"
run_dirigo sweep "$W/ed" --mode fuzz --budget 5 > /dev/null
printf '// edited\n' >> "$W/ed/residual_add.cu"
out=$(run_dirigo sweep "$W/ed" --mode fuzz --budget 5)
like "$out" "1 results from the journal, 2 runs to go" \
  "the problems whose kernel changed since their journal line run again (one names it as ../residual_add.cu)"
out=$(run_dirigo sweep "$W/ed" --mode fuzz --budget 5)
like "$out" "3 results from the journal, 0 runs to go" "and their new lines are reused"
done_testing
