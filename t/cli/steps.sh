#!/bin/sh
# dirigo check --explain / --json --explain: the writer thread's steps
# (statement, what it set, the value as a term), in execution order; the for
# loop's update and each decided condition (taken / not taken) at their own
# expressions.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/dg_steps.XXXXXX")
trap 'rm -rf "$W"' EXIT
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
cat > "$W/rows.cu" <<'CU'
__global__ void k(float *y, const float *x, int N, int C)
{
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  float acc = 0.0f;
  for (int c = 0; c < C; c++) acc += x[n * C + c];
  y[n] = acc;
}
CU
printf 'return problem {\n  source = "rows.cu",\n  op = "sum",\n  sizes = { N = 2, C = 3 },\n  launch = "k<<<1, 32>>>(y, x, N, C)",\n}\n' > "$W/rows.lua"

out=$(run_dirigo check "$W/rows.lua" --at 1 --explain --no-journal)
is "$(cat "$rcf")" 0 "equivalent (exit 0)"
like "$out" "^  steps \(the writer thread statement by statement" "--explain has a steps section"
steps=$(printf '%s\n' "$out" | sed -n '/^  steps/,/^  kernel:/p' | grep -E '^ +[0-9]+ ')
is "$(printf '%s\n' "$steps" | wc -l | tr -d ' ')" 17 "17 steps: test, body, update per iteration, the last test"
like "$steps" "^ +1 +3:7 +int n = blockIdx.x \* blockDim.x \+ threadIdx.x;   -> n = 1$" "step 1: the row, a constant"
like "$steps" "^ +2 +4:3 +if \(n >= N\) return;$" "step 2: the if, no value"
like "$steps" "^ +3 +4:7 +n >= N   -> false: not taken$" "step 3: its condition, not taken: the thread goes on"
like "$steps" "^ +7 +6:19 +c < C   -> true: taken$" "step 7: the loop's test, taken"
like "$steps" "^ +9 +6:26 +c\+\+   -> c = 1$" "step 9: the loop's update with the new value"
like "$steps" "^ +11 +6:31 +acc \+= x\[n \* C \+ c\];   -> acc = x\[3\] \+ x\[4\]$" "step 11: the second iteration's sum"
like "$steps" "^ +16 +6:19 +c < C   -> false: not taken$" "step 16: the test that ends the loop"
like "$steps" "^ +17 +7:3 +y\[n\] = acc;   -> y\[1\] = x\[3\] \+ x\[4\] \+ x\[5\]$" "the store names the element and its term"

out=$(run_dirigo check "$W/rows.lua" --at 1 --no-journal)
ok "! printf '%s\n' \"\$out\" | grep -q '^  steps'" "no steps without --explain"

out=$(run_dirigo check "$W/rows.lua" --at 1 --json --explain --no-journal)
like "$out" '"steps":\[\{"file":"[^"]*rows.cu","line":3,"col":7,"depth":1,"what":"statement","source":"int n = blockIdx.x \* blockDim.x \+ threadIdx.x;","target":"n","value":"1"\}' \
  "--json --explain: each step with its source, target and value"
like "$out" '"line":6,"col":26,"depth":1,"what":"update","source":"c\+\+","target":"c","value":"1"\}' "an update step"
like "$out" '"line":6,"col":19,"depth":1,"what":"condition","source":"c < C","target":null,"value":"false: not taken"\}' "a decision step"
like "$out" '"target":"y\[1\]","value":"x\[3\] \+ x\[4\] \+ x\[5\]"\}\],"steps_more":0' "the last step and the count past the cap"
out=$(run_dirigo check "$W/rows.lua" --at 1 --json --no-journal)
ok "! printf '%s\n' \"\$out\" | grep -q '\"steps\"'" "plain --json has no steps (they cost time)"
done_testing
