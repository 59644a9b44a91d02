#!/bin/sh
# dirigo fuzz / replay: exit codes, failure report, shrinking, replay digests.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples

out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --cases 6 --seed 3)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "a correct kernel passes a campaign (exit 0)"
like "$out" "6 cases: 6 pass, 0 fail" "summary line counts the cases"

out=$(run_dirigo fuzz "$S/softmax/softmax_warp_regs_padzero.lua" --cases 20)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "a buggy kernel fails (exit 1)"
like "$out" "FAIL at case" "the failure is reported"
like "$out" "shrunk to" "the failure shrinks to a smaller shape"
w=$(printf '%s\n' "$out" | sed -n 's/.*replay: dirigo replay [^ ]* //p')
like "$w" "^fuzz:" "a replay command is printed"

r1=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" "$w")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "replay reproduces the failure"
r2=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" "$w")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
d1=$(printf '%s\n' "$r1" | sed -n 's/.*inputs digest //p')
d2=$(printf '%s\n' "$r2" | sed -n 's/.*inputs digest //p')
ok "[ -n '$d1' ] && [ '$d1' = '$d2' ]" "replay is byte for byte the same case (digest $d1)"
is "$(printf '%s\n' "$r1" | grep -c 'fail:')" 1 "replay shows the failing element"

out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy nope 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 2 "an unknown strategy is a usage error"
like "$out" "unknown strategy 'nope'" "and says which"

out=$(run_dirigo replay "$S/softmax/softmax_warp.lua" "fuzz:boundary:1:0@Q=3" 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 2 "a witness naming an unknown size is refused"
like "$out" "'Q' is not a size of this problem" "with the reason"

out=$(run_dirigo fuzz "$S/softmax/softmax_warp_regs_padzero.lua" --cases 5 --json)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
like "$out" '"first_failure": {"case": ' "--json reports the first failure"
like "$out" '"witness": "fuzz:' "--json carries the witness"

# The envelope's backward error is normwise: layernorm_block's mean (shift +
# sum(x - shift) / C) is off by an ulp of x[0]; adversarial case 42 puts
# w = 10^4 where x is at the mean, 4e-4 relative off the fp64 reference.
# A correct fp32 kernel: no inputs a few element-wise ulps away explain it,
# inputs 4 ulps of the row's largest value away do (gpu_env_dev.h).
out=$(run_dirigo replay "$S/norm/layernorm_block.lua" "fuzz:adversarial:1:42@N=3,C=599" 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "layernorm_block, adversarial case 42 (w = 10^4 at x near the mean): passes"
like "$out" "pass" "within the kernel-precision envelope"
like "$out" "N=3 C=599 x:max-last w:large-offset b:all-equal " "a case mixing distributions names each input's"

# and it perturbs the op's float attributes too: adamw's kernel folds
# 1 - beta2^t from its float beta2 in fp32 (1e-5 relative), the reference in
# double; case 59 (m large, v small) cancels p - lr * update down to 3e-3
out=$(run_dirigo replay "$S/optim/adamw.lua" "fuzz:adversarial:1:59@N=124" 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "adamw, adversarial case 59 (the bias correction folded in fp32): passes"

out=$(run_dirigo fuzz /nonexistent/spec.lua 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 2 "a missing problem file is an input error"

# numbers out of range or negative are usage errors, not wrapped or clamped
for o in "--cases -1" "--cases 99999999999999999999999" "--seed -1" "--seed 99999999999999999999999"; do
  out=$(run_dirigo fuzz "$S/elementwise/leaky_relu_macro.lua" $o 2>&1)
  is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "fuzz $o: a usage error (exit 2)"
done
like "$out" "--seed takes a number" "that names the option"

# a witness typed by hand with sizes past the emulator's cap: an error, not an abort
out=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" 'fuzz:boundary:1:0@N=100000,C=100000' 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "replay with sizes of 10^10 elements: a usage error (exit 2)"
like "$out" "sizes the fuzzer does not run: .*softmax_warp_regs_padzero.lua:5:20: sizes break the kernel's constraint 'C <= 128'" \
  "that says why: the constraint, at file:line:col"
out=$(run_dirigo replay "$S/softmax/softmax_warp.lua" 'fuzz:boundary:1:0@N=1000,C=1000' 2>&1)
like "$out" "sizes the fuzzer does not run: tensor 'x' would have 1000000 elements, over 8192 \\(--max-elems N" \
  "sizes past the emulator's cap: which tensor, how many elements"
out=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" 'fuzz:boundary:1:0@N=-1,C=1' 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "replay with a negative size: a usage error (exit 2)"
out=$(run_dirigo replay "$S/reduce/reduce6.lua" 'fuzz:boundary:1:0@N=2' 2>&1)
like "$out" "sizes the fuzzer does not run: .*reduce6.lua:6:20: sizes break the kernel's constraint 'N == 1' \\(N = 2\\)" \
  "replay with sizes a constraint refuses: that constraint, at file:line:col"
# a case the strategy skips (huge on a pipeline) found nothing: exit 0, not 1
out=$(run_dirigo replay "$S/reduce/reduce6.lua" 'fuzz:huge:1:0' 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 0 "replay of a skipped case: exit 0 (no bug found)"
like "$out" "skipped: huge: skipped" "and it says skipped"
# replay --json: one object (it printed the text form, which no JSON reader takes)
out=$(run_dirigo replay "$S/softmax/softmax_warp_regs_padzero.lua" 'fuzz:boundary:1:0@N=1,C=1' --json 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 1 "replay --json of a failing case: exit 1"
if command -v python3 > /dev/null; then
  v=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["strategy"], d["seed"], d["case"], d["shape"], len(d["digest"]))' 2>&1)
  is "$v" "fail boundary 1 0 N=1 C=1 normal 16" "replay --json: status, strategy, seed, case, shape, digest"
else
  like "$out" '"status":"fail"' "replay --json: status"
fi
done_testing
