#!/bin/sh
# dirigo check --explain / --json --explain: the writer thread's steps
# (statement, what it set, the value as a term), in execution order.
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
is "$(printf '%s\n' "$steps" | wc -l | tr -d ' ')" 9 "9 steps: the loop's body once per iteration"
like "$steps" "^ +1 +3:7 +int n = blockIdx.x \* blockDim.x \+ threadIdx.x;   -> n = 1$" "step 1: the row, a constant"
like "$steps" "^ +2 +4:3 +if \(n >= N\) return;$" "step 2: the if, no value"
like "$steps" "^ +7 +6:31 +acc \+= x\[n \* C \+ c\];   -> acc = x\[3\] \+ x\[4\]$" "step 7: the second iteration's sum"
like "$steps" "^ +9 +7:3 +y\[n\] = acc;   -> y\[1\] = x\[3\] \+ x\[4\] \+ x\[5\]$" "the store names the element and its term"

out=$(run_dirigo check "$W/rows.lua" --at 1 --no-journal)
ok "! printf '%s\n' \"\$out\" | grep -q '^  steps'" "no steps without --explain"

out=$(run_dirigo check "$W/rows.lua" --at 1 --json --explain --no-journal)
like "$out" '"steps":\[\{"file":"[^"]*rows.cu","line":3,"col":7,"depth":1,"source":"int n = blockIdx.x \* blockDim.x \+ threadIdx.x;","target":"n","value":"1"\}' \
  "--json --explain: each step with its source, target and value"
like "$out" '"target":"y\[1\]","value":"x\[3\] \+ x\[4\] \+ x\[5\]"\}\],"steps_more":0' "the last step and the count past the cap"
out=$(run_dirigo check "$W/rows.lua" --at 1 --json --no-journal)
ok "! printf '%s\n' \"\$out\" | grep -q '\"steps\"'" "plain --json has no steps (they cost time)"
done_testing
