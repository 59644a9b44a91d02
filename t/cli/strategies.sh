#!/bin/sh
# The strategies measured side by side (bench/strategies.sh): `dirigo fuzz
# --evaluate` scores one strategy (--strategy), splits a folder over shards
# (--shard i/n) and writes one row per problem and strategy (--rows); and the
# rules that the population's table showed weak, each with the bug it now finds.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
D=$DG_SRCDIR/t/data/strategies
RC=${TMPDIR:-/tmp}/dg_rc.$$
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$RC"' EXIT
export XDG_CONFIG_HOME=$tmp/cfg DIRIGO_DATADIR=${DIRIGO_DATADIR:-$DG_SRCDIR}

# --- --evaluate: --rows, --strategy, --shard ---------------------------------------
mkdir -p "$tmp/ev"
for f in softmax_warp softmax_warp_regs_padzero transpose_tiled; do
  d=softmax; [ $f = transpose_tiled ] && d=transpose
  ln -s "$S/$d/$f.lua" "$tmp/ev/$f.lua"; ln -s "$S/$d/$f.cu" "$tmp/ev/$f.cu"
done
out=$(run_dirigo fuzz --evaluate "$tmp/ev" --cases 4 --strategy tail-sweep --rows "$tmp/rows.tsv")
is "$(cat "$RC")" 0 "--evaluate --strategy --rows: exit 0"
like "$out" "^tail-sweep +100.0% +0.0%" "--strategy: the one strategy scored (the padzero bug found, 2 correct quiet)"
ok "! printf '%s\n' \"\$out\" | grep -q '^boundary '" "--strategy: no other strategy's row"
is "$(head -1 "$tmp/rows.tsv")" "$(printf '#problem\tpattern\top\tstrategy\tresult\tseconds\tstatus\tcase\terrors\tskipped')" "--rows: the header"
is "$(grep -vc '^#' "$tmp/rows.tsv")" 3 "--rows: one row per problem (one strategy)"
row=$(grep padzero "$tmp/rows.tsv")
like "$row" "$(printf 'softmax_warp_regs_padzero.lua\tpad-zero-not-neginf\tsoftmax\ttail-sweep\tfound\t[0-9.]+\t(fail|finding)\t[0-9]+\t0\t0')" "--rows: a found bug: pattern, op, strategy, seconds, status, case, errors, skipped"
like "$(grep 'softmax_warp.lua' "$tmp/rows.tsv")" "$(printf '\tcorrect\tsoftmax\ttail-sweep\tquiet\t-\t-\t-\t0\t0$')" "--rows: a correct, quiet problem"

run_dirigo fuzz --evaluate "$tmp/ev" --cases 2 --strategy regular --shard 1/2 --rows "$tmp/s1.tsv" >/dev/null
run_dirigo fuzz --evaluate "$tmp/ev" --cases 2 --strategy regular --shard 2/2 --rows "$tmp/s2.tsv" >/dev/null
run_dirigo fuzz --evaluate "$tmp/ev" --cases 2 --strategy regular --rows "$tmp/all.tsv" >/dev/null
is "$(cat "$tmp/s1.tsv" "$tmp/s2.tsv" | grep -v '^#' | cut -f1,5 | sort)" "$(grep -v '^#' "$tmp/all.tsv" | cut -f1,5 | sort)" \
  "--shard 1/2 and 2/2: the problems split, none twice, same results"
is "$(grep -vc '^#' "$tmp/s1.tsv")" 2 "--shard 1/2: problems 1 and 3 of 3"
for bad in 0/2 3/2 x/2 2 /2 1/; do
  out=$(run_dirigo fuzz --evaluate "$tmp/ev" --shard "$bad" 2>&1)
  is "$(cat "$RC")" 2 "--shard $bad is refused (exit 2)"
done
like "$out" "--shard takes i/n" "with the usage"
out=$(run_dirigo fuzz --evaluate "$tmp/ev" --rows "$tmp/no/such/dir/r.tsv" 2>&1)
is "$(cat "$RC")" 2 "--rows into a missing folder: exit 2"
like "$out" "cannot write .*r.tsv" "naming the file"

# --- spec sizes past the size cap: scaled down instead of skipped -------------------
# --evaluate's cap is 2048 elements; transpose_swapped's spec (M=40 N=70, 2800)
# does not fit, so adversarial (values at the spec's shapes) had no case at all
out=$(run_dirigo fuzz "$S/transpose/transpose_swapped.lua" --strategy adversarial --cases 2 --max-elems 2048 -v)
is "$(cat "$RC")" 1 "adversarial under a 2048-element cap finds transpose_swapped (every case was skipped)"
like "$out" "case 0 +M=40 N=35 max-last" "at the spec's shape with its largest size halved (40x35: not square)"
out=$(run_dirigo fuzz "$S/transpose/transpose_tiled.lua" --strategy adversarial --cases 10 --max-elems 2048)
is "$(cat "$RC")" 0 "the correct transpose passes the same cases"
out=$(run_dirigo fuzz "$S/reduce/reduce6_stride.lua" --strategy adversarial --cases 2 --max-elems 2048 -v)
is "$(cat "$RC")" 1 "reduce6_stride: found at C=1500 (more than one grid-stride step)"
like "$out" "case 0 +N=1 C=1500 " "C=3000 halved once"
out=$(run_dirigo fuzz "$S/attention/attention_online_offbyone.lua" --strategy adversarial --cases 2 --max-elems 2048 -v)
is "$(cat "$RC")" 1 "attention_online_offbyone: found with T=33 kept (D halved)"
like "$out" "case 0 +B=1 H=2 T=33 D=20 " "the largest size (D) halved, T % 32 == 1 kept"
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy adversarial --cases 10 -v)
like "$out" "case 0 +N=7 C=77 " "a spec that fits keeps its sizes"

# --- a max padded with 0 in a softmax: only rows at -10^4 show it -------------------
# (a copy of the mutant softmax_warp-pad-01: `float m = -CUDART_INF_F` -> `0.0f`;
# softmax is shift-invariant, so a max of 0 is right unless every exp underflows)
for st in boundary+adversarial boundary+adversarial+huge; do
  out=$(run_dirigo fuzz "$D/softmax_warp_pad.lua" --strategy $st --cases 16 --max-elems 2048)
  is "$(cat "$RC")" 1 "$st (16 cases) finds a softmax max padded with 0 (its large-offset case 15; all-equal there before)"
  like "$out" "FAIL at case 15 \(N=[0-9]+ C=[0-9]+ large-offset\): .*kernel -?nan" "  at case 15, large-offset, NaN where the reference is finite"
done
out=$(run_dirigo fuzz "$D/softmax_warp_pad.lua" --strategy tail-sweep --cases 16 --max-elems 2048)
is "$(cat "$RC")" 1 "tail-sweep finds it (large-offset after a full block; negative values alone could not)"
like "$out" "FAIL at case 3 \(N=7 C=129 large-offset\)" "  at case 3: a tail of 1 after a full block of 128"
for st in boundary+adversarial tail-sweep; do
  out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy $st --cases 16 --max-elems 2048)
  is "$(cat "$RC")" 0 "the correct softmax_warp passes $st's same 16 cases"
done
out=$(run_dirigo fuzz "$S/softmax/softmax_warp.lua" --strategy boundary+adversarial --cases 20 --max-elems 2048 -v)
is "$(printf '%s\n' "$out" | awk '$1 == "case" && $(NF - 3) != "normal" { printf "%s %s ", $2, $(NF - 3) }')" \
  "1 max-last 3 negative 5 huge 7 near-equal 9 tiny 11 ties 13 sorted 15 large-offset 17 all-equal 19 special " \
  "boundary+adversarial: odd cases adversarial, cases 1-13 as before, large-offset at 15, all-equal at 17"

# --- huge: past 2^32 as well ----------------------------------------------------------
# (a copy of the mutant max_block-cast-01: `(size_t)blockIdx.x * C` -> `(blockIdx.x) * C`,
# an unsigned 32-bit product: right past 2^31 elements, wrapped past 2^32)
out=$(run_dirigo fuzz "$D/max_block_cast.cu" --strategy huge -v)
is "$(cat "$RC")" 1 "huge finds an unsigned blockIdx.x * C (it passed both cases past 2^31)"
like "$out" "case 1 +N=4194304 C=641 huge uniform +pass" "  past 2^31 (N=2^22, C=641): right"
like "$out" "FAIL at case 2 \(N=4194304 C=1281 huge normal\): y\[4194303\]: .*mismatch.*huge case: ran [0-9]+ of 4194304 blocks" \
  "  case 2 past 2^32 (C=1281): the last row reads the wrapped one"
out=$(run_dirigo replay "$D/max_block_cast.cu" "fuzz:huge:1:2@N=4194304,C=1281")
is "$(cat "$RC")" 1 "  its witness replays"
out=$(run_dirigo fuzz "$S/reduce/max_block.cu" --strategy huge)
like "$out" "^3 cases: 3 pass" "the correct max_block passes the same three cases"
done_testing
