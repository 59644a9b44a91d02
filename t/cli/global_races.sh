#!/bin/sh
# Races on global memory: samples/reduce/l2norm_plain adds two blocks'
# partial sums into acc[row] with a plain `+=` where l2norm_atomic uses
# atomicAdd. The emulator runs the blocks one after another, so the sum
# comes out right and the check once proved it; the second block's load of
# what the first stored (or its store, which changes it) is a race naming
# both blocks, their threads and the line, in fuzz and in check --auto
# (whose concrete run's inputs become a witness that dirigo replay
# reproduces), and in the workbench. samples/reduce/l2norm_warps does the
# same between the four warps of one block with no barrier between them:
# a race between two warps (the check said `bug`, with a witness that
# replays on the emulator's warp order only). The atomic version and the
# other kernels with global atomics, grid-stride loops and multi-launch
# pipelines stay clean.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
rcf="${TMPDIR:-/tmp}/dg_rc.$$"

out=$(run_dirigo fuzz "$S/reduce/l2norm_plain.lua" --cases 8)
is "$(cat "$rcf")" 1 "fuzz: acc[row] += s from two blocks is a finding (exit 1)"
like "$out" "l2norm_plain.cu:14:27: race: write-(write|read) of acc\[[0-9]+\] by two blocks of one launch.* \(block \(1,[0-9]+,0\) thread \(0,0,0\)\) vs block \(0,[0-9]+,0\) thread \(0,0,0\) at line 14:27" \
  "  a race: block (1,row)'s load (or store) against block (0,row)'s store, same line"
out=$(run_dirigo check "$S/reduce/l2norm_plain.lua" --auto --no-journal --budget 20)
is "$(cat "$rcf")" 1 "check --auto: a finding (exit 1)"
like "$out" "^y\[[0-9]+\] +race .*l2norm_plain.cu:14:27: race: write-(write|read) of acc\[[0-9]+\] by two blocks .* vs block \(0,[0-9]+,0\) thread \(0,0,0\) at line 14:27 .*concrete run on the emulator" \
  "  the same race, from the concrete run (no more 'equivalent')"
ok "! printf '%s' \"\$out\" | grep -q equivalent" "  and no element proved equivalent"
out=$(run_dirigo check "$S/reduce/l2norm_plain.lua" --at 2 --json --no-journal --budget 20)
like "$out" '"verdict":"race"' "check --json: verdict race"
like "$out" '"other":\{"file":"[^"]*l2norm_plain.cu","line":14' "  the other store's line in the event"
like "$out" '"block":[0-9]+,"thread":0,"thread2":0,"offset":[0-9]+,"block2":[0-9]+,"block2_idx":\[0,[0-4],0\]\}' "  and the other store's block (linear and coordinates)"

# the concrete run's inputs are the witness: a file that replays the race
W="${TMPDIR:-/tmp}/dg_grace.$$"
rm -rf "$W"; mkdir -p "$W"
cp "$S/reduce/l2norm_plain.cu" "$S/reduce/l2norm_plain.lua" "$W/"
out=$(run_dirigo check "$W/l2norm_plain.lua" --at 3 --budget 20)
like "$out" "witness: .*witness-l2norm_plain-y-3.json" "check: the race's inputs saved as a witness"
out=$(run_dirigo replay "$W/l2norm_plain.lua" "$W/.dirigo/witness-l2norm_plain-y-3.json")
is "$(cat "$rcf")" 1 "replay of the witness: a finding (exit 1)"
like "$out" "^y\[3\] +race .*l2norm_plain.cu:14:27: race: write-(write|read) .*replayed on the emulator" "  the same race, replayed"
rm -rf "$W"; mkdir -p "$W"

# the workbench (headless): the store's line marked race, the result pane explains
mkdir -p "$W/d"
cp "$S/reduce/l2norm_plain.cu" "$S/reduce/l2norm_plain.lua" "$W/"
printf '<Tab>\ng0<Enter>\nc\n<Wait>\n<Dump>\n' > "$W/keys"
(cd "$W" && XDG_CONFIG_HOME="$W/cfg" "$DIRIGO" --headless 130x34 --keys keys --dump d l2norm_plain.lua >/dev/null 2>&1)
scr=$(cat "$W/d/001.txt" 2>/dev/null)
like "$scr" "14 +if \(threadIdx.x == 0\) acc\[row\] \+= s; +race" "workbench: the store's line is marked race"
like "$scr" "race +y\[0\]" "  the result pane: race y[0]"
like "$scr" "by two blocks of one launch" "  with the message"
rm -rf "$W"

# two warps of one block: l2norm_warps
out=$(run_dirigo fuzz "$S/reduce/l2norm_warps.lua" --cases 8)
is "$(cat "$rcf")" 1 "fuzz: acc[row] += s from four warps of a block is a finding (exit 1)"
like "$out" "FINDING .*l2norm_warps.cu:15:34: race: read-write of acc\[[0-9]+\] by two warps of one block in one barrier interval: .*\(block \([0-9]+,0,0\) thread \((0|32|64|96),0,0\)\) vs thread (0|32|64|96) at line 15:34" \
  "  a read-write race between two warps' lane 0, same line (every lane loads, then the first store lands after another warp's load)"
out=$(run_dirigo check "$S/reduce/l2norm_warps.lua" --auto --no-journal --budget 20)
is "$(cat "$rcf")" 1 "check --auto: a finding (exit 1)"
like "$out" "^y\[[0-9]+\] +race .*l2norm_warps.cu:15:34: race: read-write of acc\[[0-9]+\] by two warps of one block .* vs thread [0-9]+ at line 15:34 .*concrete run on the emulator" \
  "  the race between warps, from the concrete run (was a bug of the emulator's warp order)"
ok "! printf '%s' \"\$out\" | grep -qE ' (equivalent|bug) '" "  and no element equivalent or bug"
out=$(run_dirigo check "$S/reduce/l2norm_warps.lua" --at 1 --json --no-journal --budget 20)
like "$out" '"verdict":"race"' "check --json: verdict race"
ok "! printf '%s' \"\$out\" | grep -q block2" "  no other block in the event (one block's warps)"
W2="${TMPDIR:-/tmp}/dg_grace_w.$$"
rm -rf "$W2"; mkdir -p "$W2"
cp "$S/reduce/l2norm_warps.cu" "$S/reduce/l2norm_warps.lua" "$W2/"
out=$(run_dirigo check "$W2/l2norm_warps.lua" --at 2 --budget 20)
like "$out" "witness: .*witness-l2norm_warps-y-2.json" "check: the warps' race's inputs saved as a witness"
out=$(run_dirigo replay "$W2/l2norm_warps.lua" "$W2/.dirigo/witness-l2norm_warps-y-2.json")
is "$(cat "$rcf")" 1 "replay of the witness: a finding (exit 1)"
like "$out" "^y\[2\] +race .*l2norm_warps.cu:15:34: race: read-write .*two warps.*replayed on the emulator" "  the same race, replayed"
rm -rf "$W2"

# loads between blocks: the __threadfence "last block" (t/data/grace/l2norm_last: each block
# stores its partial, fences, counts itself with atomicAdd; the last one reads every partial)
# is no race; without the fence its loads of the other block's partial are one
G=$DG_SRCDIR/t/data/grace
out=$(run_dirigo fuzz "$G/l2norm_last.lua" --cases 8)
is "$(cat "$rcf")" 0 "fuzz: the last block reading the partials after __threadfence and atomicAdd passes"
ok "! printf '%s' \"\$out\" | grep -qE 'race: | race '" "  without a race"
out=$(run_dirigo check "$G/l2norm_last.lua" --auto --no-journal --budget 20)
ok "! printf '%s' \"\$out\" | grep -qE 'race: | race '" "check --auto: no race in the last-block pattern"
rm -rf "$W"; mkdir -p "$W"
sed 's/__threadfence();//' "$G/l2norm_last.cu" > "$W/l2norm_last.cu"
cp "$G/l2norm_last.lua" "$W/"
out=$(run_dirigo fuzz "$W/l2norm_last.lua" --cases 8)
is "$(cat "$rcf")" 1 "fuzz: the same without the __threadfence is a finding (exit 1)"
like "$out" "FINDING .*l2norm_last.cu:20:54: race: write-read of part\[[0-9]+\] by two blocks of one launch: what the load sees depends on which block runs first .* vs block \(0,[0-9]+,0\) thread \(0,0,0\) at line 15:9" \
  "  the last block's load of the other block's partial, against its store"
rm -rf "$W"
# t/data/grace/l2norm_late: each block fences and counts itself, then stores its partial: a store
# after the fence and the atomic is not published by them (the emulator exempted it before)
out=$(run_dirigo fuzz "$G/l2norm_late.lua" --cases 8)
is "$(cat "$rcf")" 1 "fuzz: the partial stored after the __threadfence and the atomicAdd is a finding (exit 1)"
like "$out" "FINDING .*l2norm_late.cu:20:54: race: write-read of part\[[0-9]+\] by two blocks of one launch: what the load sees depends on which block runs first .* vs block \(0,[0-9]+,0\) thread \(0,0,0\) at line 17:9" \
  "  the last block's load of the other block's partial, against its store after the atomic"
out=$(run_dirigo check "$G/l2norm_late.lua" --auto --no-journal --budget 20)
is "$(cat "$rcf")" 1 "check --auto: the same is a finding (exit 1)"
like "$out" "^y\[[0-9]+\] +race .*l2norm_late.cu:20:54: race: write-read of part\[[0-9]+\] .* at line 17:9 .*concrete run on the emulator" \
  "  the race, from the concrete run"

# a load before another warp's store (loads are recorded): t/data/grace/cumsum_inplace scans a
# row in place with no barrier between a step's load of yr[c - off] and its store of yr[c]; the
# emulator loads for the whole block before any store and its sums come out right (the check
# proved it equivalent before), on a GPU warp 1 may load yr[31] after warp 0 added to it
out=$(run_dirigo check "$G/cumsum_inplace.lua" --auto --no-journal --budget 20)
is "$(cat "$rcf")" 1 "check --auto: the in-place scan with no barrier between load and store is a finding (exit 1)"
like "$out" "^y\[0,[0-9]+\] +race .*cumsum_inplace.cu:16:20: race: read-write of y\[31\] by two warps of one block in one barrier interval: .*\(block \(0,0,0\) thread \(31,0,0\)\) vs thread 32 at line 15:39 .*concrete run on the emulator" \
  "  warp 0's store (16:20, thread 31) against warp 1's earlier load (15:39, thread 32)"
ok "! printf '%s' \"\$out\" | grep -qE ' (equivalent|bug) '" "  and no element equivalent or bug"
rm -rf "$W"; mkdir -p "$W"
cp "$G/cumsum_inplace.cu" "$G/cumsum_inplace.lua" "$W/"
out=$(run_dirigo check "$W/cumsum_inplace.lua" --at 0,40 --budget 20)
like "$out" "witness: .*witness-cumsum_inplace-y-0-40.json" "check --at 0,40: the race's inputs saved as a witness"
out=$(run_dirigo replay "$W/cumsum_inplace.lua" "$W/.dirigo/witness-cumsum_inplace-y-0-40.json")
is "$(cat "$rcf")" 1 "replay of the witness: a finding (exit 1)"
like "$out" "race .*cumsum_inplace.cu:16:20: race: read-write of y\[31\] by two warps.* vs thread 32 at line 15:39 .*replayed on the emulator" \
  "  the same race, replayed"
sed 's/^\(        float t = .*\)$/\1\n        __syncthreads();/' "$G/cumsum_inplace.cu" > "$W/cumsum_inplace.cu"
out=$(run_dirigo check "$W/cumsum_inplace.lua" --at 0,40 --no-journal --budget 20)
like "$out" "^y\[0,40\] +equivalent" "check: with a barrier between the load and the store, equivalent"
rm -rf "$W"

for p in reduce/l2norm_atomic atomics/scatter_add atomics/histogram_smem elementwise/relu_gridstride reduce/reduce6; do
  [ -f "$S/$p.lua" ] || [ -f "$S/$p.cu" ] || continue
  f=$S/$p.lua; [ -f "$f" ] || f=$S/$p.cu
  out=$(run_dirigo fuzz "$f" --cases 8)
  is "$(cat "$rcf")" 0 "fuzz: the correct $p passes"
  ok "! printf '%s' \"\$out\" | grep -qE 'race: | race '" "  without a race"
done
out=$(run_dirigo check "$S/reduce/l2norm_atomic.lua" --at 2 --no-journal --budget 20)
like "$out" "^y\[2\] +equivalent" "check: l2norm_atomic stays equivalent"
rm -f "$rcf"
done_testing
