#!/bin/sh
# What a new user gets wrong on the command line: each mistake gives a message
# that names the file (and line:col where there is one) and exit status 2.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
W=$(mktemp -d "${TMPDIR:-/tmp}/dg_errors.XXXXXX")
trap 'rm -rf "$W" "$rcf"' EXIT
S=$DG_SRCDIR/samples/elementwise
cp "$S/leaky_relu_macro.lua" "$S/leaky_relu_macro.cu" "$W/"
P=$W/leaky_relu_macro.lua

# replay of a witness file that is not there: say so, not "not a fuzz witness"
out=$(run_dirigo replay "$P" "$W/.dirigo/witness-nothere.json" 2>&1)
is "$(cat "$rcf")" 2 "replay of a missing witness file: exit 2"
like "$out" "witness-nothere.json: No such file or directory" "replay of a missing witness file names it and says it is missing"

# a misspelt strategy: the message lists the strategies there are, Lua ones included
out=$(run_dirigo fuzz "$P" --strategy boundry 2>&1)
is "$(cat "$rcf")" 2 "fuzz --strategy with a typo: exit 2"
like "$out" "unknown strategy 'boundry'; strategies: regular boundary .*tail-sweep" "the message lists the strategies"

# a folder given where a problem goes: say what to run instead
out=$(run_dirigo check "$W" --at 0 2>&1)
is "$(cat "$rcf")" 2 "check of a folder: exit 2"
like "$out" "a folder, not a problem: 'dirigo sweep .*' runs every problem under it" "check of a folder points to dirigo sweep"

# --at with a name but no bracket: say the forms and the outputs
out=$(run_dirigo check "$P" --at y5 2>&1)
is "$(cat "$rcf")" 2 "--at y5: exit 2"
like "$out" "--at y5: expected i,j,... or NAME\\[i,j,...\\] \\(outputs: y\\)" "--at y5 says the forms and names the outputs"

# a spec whose kernel file is not there: the error points at its source = line
cat > "$W/nokernel.lua" <<'EOF2'
return problem {
  op     = "leaky_relu",
  source = "nothere.cu",
  sizes  = { N = 8 },
  launch = "k<<<1, 32>>>(x, y, N)",
}
EOF2
out=$(run_dirigo check "$W/nokernel.lua" --at 0 2>&1)
is "$(cat "$rcf")" 2 "check of a spec whose kernel file is missing: exit 2"
like "$out" "nokernel.lua:3:3: error: cannot read '.*nothere.cu': No such file or directory" "the missing kernel file is reported at the spec's source = line"

done_testing
