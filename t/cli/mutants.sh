#!/bin/sh
# dirigo mutants: the mutants of a problem's kernel, listed and written out as
# problems that load, run and score (doc/mutants.md); errors.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/uninit
W=${TMPDIR:-/tmp}/dg_mutants.$$
rm -rf "$W"

out=$(run_dirigo mutants "$D/rowsum_late.lua")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "listing the mutants of a problem"
like "$out" "rowsum.cu:17:11: rel: \`<\` -> \`<=\`" "a bound one off, at file:line:col"
like "$out" "rowsum.cu:19:39: acc: \`\\+=\` -> \`=\`" "a lost accumulation"
like "$out" "rowsum.cu:19:44: cast: cast to \`size_t\` dropped" "a 64-bit index cast dropped"
ok "! printf '%s\n' \"\$out\" | grep -q 'rowsum.cu:[1-9]:'" "nothing in rowsum_uninit, which the spec does not launch"
ok "! printf '%s\n' \"\$out\" | grep -q 'rowsum.cu:19:[0-9]*: acc.*c +='" "not the loop's step"
like "$out" "^4 mutants of 1 problem \(rel 2, acc 1, sync 0, pad 0, cast 1, init 0, mask 0, shfl 0, minmax 0, atomic 0\)" "the count by operator"

out=$(run_dirigo mutants "$D/rowsum_late.lua" --ops rel --out "$W")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "--ops rel --out DIR writes them"
like "$out" "^2 mutants of 1 problem written to $W \(rel 2\)" "two"
ok "[ -f '$W/rowsum_late-rel-02/rowsum_late.lua' ] && [ -f '$W/rowsum_late-rel-02/rowsum.cu' ]" "a folder a mutant: spec and kernel"
like "$(cat "$W/rowsum_late-rel-02/rowsum_late.lua")" "seeded_bug = \{ pattern = \"mutant-rel\", detail = \[==\[rowsum.cu:19:27: \`<\` -> \`<=\`\]==\] \}" \
  "the spec names the mutation as its seeded bug"
like "$(cat "$W/rowsum_late-rel-02/rowsum.cu")" "for \(int c = 0; c <= C; \+\+c\)" "the kernel carries it"
out=$(run_dirigo fuzz "$W/rowsum_late-rel-02/rowsum_late.lua" --cases 4)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "the mutant loads and its bug is found (a read past the row)"
out=$(run_dirigo sweep "$W" --mode fuzz --budget 10 --fresh)
like "$out" "seeded bugs found \(recall\) +2/2" "sweep scores the mutants as seeded bugs"

# a kernel file that is its own spec (a `dirigo:` block): the seeded bug goes into that block
W2=$W/cu
out=$(run_dirigo mutants "$DG_SRCDIR/samples/elementwise/relu_gridstride.cu" --ops rel --out "$W2")
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "a .cu spec's mutants are written"
m=$(ls "$W2" | head -1)
ok "[ -n '$m' ] && [ -f '$W2/$m/relu_gridstride.cu' ]" "one file a mutant: the kernel is the spec"
like "$(head -3 "$W2/$m/relu_gridstride.cu")" "^/\* dirigo:
  seeded_bug = \{ pattern = \"mutant-rel\", detail = \[==\[relu_gridstride.cu:[0-9]+:[0-9]+: " \
  "its dirigo: block names the mutation first"
out=$(run_dirigo fuzz "$W2/$m/relu_gridstride.cu" --cases 2 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
ok "[ $rc -le 1 ]" "and the mutant loads (exit $rc)"

out=$(run_dirigo mutants "$D/rowsum_late.lua" --ops rel,nope 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 2 "an unknown operator is a usage error"
like "$out" "unknown operator 'nope' \(--ops takes a list of: rel, acc, sync" "naming the known ones"
out=$(run_dirigo mutants "$D/nope.lua" 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 2 "a missing problem is an input error"
like "$out" "nope.lua: No such file or directory" "which says so"
: > "$W/file"
out=$(run_dirigo mutants "$D/rowsum_late.lua" --out "$W/file/sub" 2>&1)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 2 "an --out that cannot be created: exit 2"
like "$out" "cannot create $W/file/sub/rowsum_late-rel-01" "naming it, once"
is "$(printf '%s\n' "$out" | grep -c 'cannot create')" 1 "and stops there"
rm -rf "$W"
done_testing
