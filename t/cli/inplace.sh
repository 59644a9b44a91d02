#!/bin/sh
# A kernel that stores into a tensor the spec declares an input clobbers its
# caller's data even when its output is right: a readonly-write finding in
# fuzz and check alike (in-place updates are `accumulate` outputs).
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/inplace

out=$(run_dirigo fuzz "$D/relu_inplace.lua" --cases 4)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "fuzz: a kernel storing into its input is a bug (exit 1)"
like "$out" "relu_inplace.cu:6:18: readonly-write: store into read-only x at byte" "named at the store's file:line:col"
like "$out" "an in-place update is an \`accumulate\` output" "the message says how to declare an in-place update"
w=$(printf '%s\n' "$out" | sed -n 's/.*replay: dirigo replay [^ ]* //p')
out=$(run_dirigo replay "$D/relu_inplace.lua" "$w")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "the printed replay reproduces it"
like "$out" "readonly-write" "as the same finding"

out=$(run_dirigo check "$D/relu_inplace.lua" --at 3)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "check: the same kernel is a finding"
like "$out" "y\[3\] +finding .*readonly-write: store into read-only x" "a readonly-write on x"

out=$(run_dirigo fuzz "$D/relu_local.lua" --cases 4)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "fuzz: the kernel keeping the value in a local passes"
out=$(run_dirigo check "$D/relu_local.lua" --at 3)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "check: and is equivalent"
like "$out" "y\[3\] +equivalent" "at the element asked"
done_testing
