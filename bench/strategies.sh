#!/bin/sh
# bench/strategies.sh — every named fuzz strategy (the built-ins, the shipped
# Lua ones, and two baselines of bench/strategies/: `differential`, a plain
# differential test, and `pow2-only`, the literature's regular shapes)
# scored on a population worth a percentage: the mutants of the correct
# samples that pass a plain differential test (bench/mutants.sh's population),
# the samples' seeded bugs, and the correct samples for false positives.
#   1. the population: `dirigo mutants` of every correct sample, each under
#      bench/strategies/differential.lua (the spec's sizes, normal values,
#      DIFF_CASES=5 draws; only a wrong value catches a mutant, as on
#      hardware); the mutants it passes are kept (as in bench/mutants.sh).
#      --population DIR reuses such a folder (bench/mutants.sh --keep W: W/pass)
#   2. `dirigo fuzz --evaluate` over the population and over the samples,
#      --cases 16 --seed 1 per strategy, split over --jobs shards (--shard i/n),
#      one row per problem and strategy (--rows)
#   3. tables: per strategy, recall over the mutants that pass the
#      differential test less the ones read as equivalent
#      (bench/strategies/equivalent.list: not counted as bugs; a strategy that
#      flags one is shown in the column "eq. flagged"), recall over the seeded
#      samples, false positives over the correct samples, median time to the
#      first failure; then recall per bug class (mutation operator, seeded
#      pattern), and the literature's softmax tail-mask row.
# sh bench/strategies.sh [--population DIR] [--jobs N] [--cases N] [--seed S]
#                        [--strategy NAME] [--keep DIR] [--samples DIR] [--report DIR]
# --report DIR prints the tables again from a kept run's rows (--keep DIR).
# (DIRIGO=path/to/dirigo, DG_SRCDIR=the source tree; `make bench-strategies`)
set -u
src=${DG_SRCDIR:-.}
dirigo=${DIRIGO:-./dirigo}
pop=""; report=""; jobs=2; cases=16; seed=1; keep=""; from=$src/samples; only=""
diffcases=${DIFF_CASES:-5}
while [ $# -gt 0 ]; do
  case $1 in
    --population) pop=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --cases) cases=$2; shift ;;
    --seed) seed=$2; shift ;;
    --strategy) only="--strategy $2"; shift ;;
    --keep) keep=$2; shift ;;
    --samples) from=$2; shift ;;
    --report) report=$2; keep=$2; shift ;;
    *) echo "usage: sh bench/strategies.sh [--population DIR] [--jobs N] [--cases N] [--seed S] [--strategy NAME] [--keep DIR] [--samples DIR] [--report DIR]" >&2
       exit 2 ;;
  esac
  shift
done
w=${keep:-$(mktemp -d)}
mkdir -p "$w/cfg/dirigo/strategies"
cp "$src/bench/strategies/differential.lua" "$src/bench/strategies/pow2_only.lua" "$w/cfg/dirigo/strategies/"
export XDG_CONFIG_HOME="$w/cfg" DIRIGO_DATADIR=${DIRIGO_DATADIR:-$src}
t0=$(date +%s)
if [ -n "$report" ]; then :
elif [ -z "$pop" ]; then
  rm -rf "$w/all" "$w/pass" "$w/quiet.list"; mkdir -p "$w/pass"; : >"$w/quiet.list"
  "$dirigo" mutants "$from" --out "$w/all" >"$w/mutants.log" 2>"$w/mutants.err"
  for d in "$w"/all/*/; do
    spec=$(ls "$d"*.lua 2>/dev/null | head -1)
    [ -n "$spec" ] || spec=$(ls "$d"*.cu | head -1)
    timeout 60 "$dirigo" fuzz "$spec" --strategy differential --cases "$diffcases" >"$d/diff.log" 2>&1
    rc=$?
    nfail=$(sed -n 's/^[0-9]* cases: [0-9]* pass, \([0-9]*\) fail,.*/\1/p' "$d/diff.log")
    # passes: no failure at all, or only an emulator finding with every value right
    if [ $rc = 0 ]; then mv "$d" "$w/pass/"
    elif [ $rc = 1 ] && [ "${nfail:-1}" = 0 ] && ! grep -q 'runaway-loop:' "$d/diff.log"; then
      mv "$d" "$w/pass/"; basename "$d" >>"$w/quiet.list"
    fi
  done
  pop=$w/pass
fi
# the mutants that passed the differential test only because the emulator
# stopped at undefined behaviour first (bench/mutants.sh writes the same list)
quietlist=""
for q in "$w/quiet.list" "${pop%/}/../quiet.list"; do
  [ -z "$quietlist" ] && [ -n "$pop$report" ] && [ -f "$q" ] && quietlist=$q
done
# kept beside the rows, so that --report finds it
if [ -n "$quietlist" ] && [ "$quietlist" != "$w/quiet.list" ]; then cp "$quietlist" "$w/quiet.list"; quietlist=$w/quiet.list; fi
t1=$(date +%s)
# every shard of the population and of the samples, $jobs at a time
run_shards() {  # DIR TAG
  i=1
  while [ $i -le "$jobs" ]; do
    # shellcheck disable=SC2086
    "$dirigo" fuzz --evaluate "$1" --cases "$cases" --seed "$seed" $only --shard "$i/$jobs" \
      --rows "$w/$2-$i.tsv" >"$w/$2-$i.out" 2>"$w/$2-$i.err" &
    i=$((i + 1))
  done
  wait
}
# the run's options, for --report
if [ -n "$report" ]; then [ -f "$w/meta" ] && . "$w/meta"
else printf 'cases=%s\nseed=%s\n' "$cases" "$seed" >"$w/meta"; fi
[ -n "$report" ] || run_shards "$pop" pop
t2=$(date +%s)
[ -n "$report" ] || run_shards "$from" samples
t3=$(date +%s)
cat "$w"/pop-*.tsv | grep -v '^#' >"$w/pop.tsv"
cat "$w"/samples-*.tsv | grep -v '^#' >"$w/samples.tsv"
awk -F'\t' -v eqfile="$src/bench/strategies/equivalent.list" -v quietfile="$quietlist" -v cases="$cases" -v seed="$seed" '
function base(p,  n, a) { n = split(p, a, "/"); return a[n - 1] }   # the mutant folder
function median(list,  n, a, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return n ? a[int((n + 1) / 2)] : -1
}
function short(s) { return s in abbr ? abbr[s] : substr(s, 1, 8) }
function pct(a, b) { return b ? sprintf("%5.1f%%", 100 * a / b) : "   -  " }
BEGIN {
  while ((getline l < eqfile) > 0) if (l != "" && l !~ /^#/) eq[l] = 1
  while (quietfile != "" && (getline l < quietfile) > 0) if (l != "") quiet[l] = 1
  split("regular boundary adversarial dtype-edge boundary+adversarial huge boundary+adversarial+huge " \
        "differential pow2-only pow2-edge primes tail-sweep", full, " ")
  split("regular bound advers dtype b+a huge b+a+h diff pow2only pow2edge primes tail", ab, " ")
  for (i in full) abbr[full[i]] = ab[i]
}
FNR == 1 { src = FILENAME ~ /pop\.tsv$/ ? "pop" : "samples" }
{
  st = $4; if (!(st in seen)) { seen[st] = 1; order[++nst] = st }
  if ($5 == "unusable") { unusable[src]++; next }
  if (src == "pop") {
    m = base($1)
    if (m in eq) { if (!((m, "eq") in cnt)) { cnt[m, "eq"] = 1; neq++ } ; if ($5 == "found") eqf[st]++; next }
    cls = $2; sub(/^mutant-/, "", cls)
    if (st == order[1]) {
      pop_total++; ctot[cls]++; if (!(m in quiet)) nclean++
      if ($3 == "softmax" && cls == "rel") { smtail++; if (!(m in quiet)) smclean++ }
      if (cls == "rel" && !(m in quiet)) relclean++
    }
    if ($5 == "found" && cls == "rel" && !(m in quiet)) relcf[st]++
    if ($5 == "found") {
      pf[st]++; cf[cls, st]++; t[st] = t[st] " " $6
      if (!(m in quiet)) pfc[st]++
      if ($3 == "softmax" && cls == "rel") { smf[st]++; if (!(m in quiet)) smfc[st]++ }
    }
  } else if ($2 == "correct") {
    if (st == order[1]) ncorrect++
    if ($5 == "fp") fp[st]++
  } else {
    cls = "seeded:" $2
    tailmask = $2 == "missing-tail-mask" || $2 == "off-by-one-loop"
    if (st == order[1]) { nseeded++; ctot[cls]++; if ($3 == "softmax" || $3 == "log_softmax") smseed++; if (tailmask) ntm++ }
    if ($5 == "found" && tailmask) tmf[st]++
    if ($5 == "found") { sf[st]++; cf[cls, st]++; t[st] = t[st] " " $6; if ($3 == "softmax" || $3 == "log_softmax") sms[st]++ }
  }
}
END {
  printf "strategies scored with dirigo fuzz --evaluate --cases %d --seed %d\n", cases, seed
  printf "population: %d mutants that pass a differential test and are not in the equivalent list (%d listed as equivalent)\n", pop_total, neq
  printf "            %d seeded bugs of the samples, %d correct samples (false positives)\n\n", nseeded, ncorrect
  printf "%-26s %-17s %-10s %-15s %-13s %-11s %s\n", "strategy", "mutants (recall)", "quiet-free", "seeded (recall)", "FP (correct)",
    "eq. flagged", "median t-first"
  for (i = 1; i <= nst; i++) {
    s = order[i]
    printf "%-26s %4d/%-4d %s   %s    %3d/%-3d %s  %2d/%-2d %s  %4d/%-4d   %8.3f s\n", s, pf[s], pop_total, pct(pf[s], pop_total),
      (quietfile != "" ? pct(pfc[s], nclean) : "   -  "), sf[s], nseeded, pct(sf[s], nseeded), fp[s], ncorrect, pct(fp[s], ncorrect), eqf[s], neq, median(t[s])
  }
  if (quietfile == "") printf "(quiet-free: no quiet.list beside the population, so not counted)\n"
  else printf "(quiet-free: recall over the %d mutants whose differential test saw nothing at all; the other %d passed it\n", nclean, pop_total - nclean
  if (quietfile != "") {
    printf " only because the emulator stopped at undefined behaviour (out of bounds, a race) before any value was wrong:\n"
    printf " hardware would pass them, but every campaign that runs the spec'"'"'s sizes on the emulator finds them)\n"
  }
  printf "\nrecall per bug class (found/total; mutation operator, then the samples'"'"' seeded patterns)\n"
  printf "%-34s", "class"
  for (i = 1; i <= nst; i++) printf " %8s", short(order[i])
  printf "\n"
  n = 0
  for (c in ctot) names[++n] = c
  for (i = 2; i <= n; i++) {        # mutation operators first, then the seeded patterns, by name
    x = names[i]; kx = (x ~ /^seeded/) x
    for (j = i - 1; j >= 1 && (names[j] ~ /^seeded/) names[j] > kx; j--) names[j + 1] = names[j]
    names[j + 1] = x
  }
  for (k = 1; k <= n; k++) {
    c = names[k]
    printf "%-28s %5d", substr(c, 1, 28), ctot[c]
    for (i = 1; i <= nst; i++) printf " %8s", sprintf("%d", cf[c, order[i]])
    printf "\n"
  }
  printf "\nthe literature'"'"'s row: \"regular power-of-two shapes caught 0%% of softmax tail-mask bugs\"\n"
  printf "(pow2-only is that strategy; regular here starts at the spec'"'"'s sizes; an emulator finding counts)\n"
  printf "%-34s", "tail masks and loop bounds"
  for (i = 1; i <= nst; i++) printf " %8s", short(order[i])
  printf "\n%-28s %5d", "seeded tail mask/loop bound", ntm
  for (i = 1; i <= nst; i++) printf " %8s", pct(tmf[order[i]], ntm)
  printf "\n%-28s %5d", "rel mutants, quiet-free", relclean
  for (i = 1; i <= nst; i++) printf " %8s", pct(relcf[order[i]], relclean)
  printf "\n%-28s %5d", "rel mutants (op softmax)", smtail
  for (i = 1; i <= nst; i++) printf " %8s", pct(smf[order[i]], smtail)
  printf "\n%-28s %5d", "  quiet-free of them", smclean
  for (i = 1; i <= nst; i++) printf " %8s", pct(smfc[order[i]], smclean)
  printf "\n%-28s %5d", "seeded softmax samples", smseed
  for (i = 1; i <= nst; i++) printf " %8s", pct(sms[order[i]], smseed)
  printf "\n"
  printf "\n(columns: "
  for (i = 1; i <= nst; i++) printf "%s%s = %s", (i > 1 ? ", " : ""), short(order[i]), order[i]
  printf ")\n"
  for (s in unusable) printf "\n%d %s problems did not load (rows marked unusable)\n", unusable[s], s
}' "$w/pop.tsv" "$w/samples.tsv"
echo
[ -n "$report" ] || echo "(population $((t1 - t0)) s; evaluation: population $((t2 - t1)) s, samples $((t3 - t2)) s, $jobs jobs; rows in $w/pop.tsv, $w/samples.tsv)"
[ -n "$keep" ] || rm -rf "$w"
