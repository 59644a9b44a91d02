#!/bin/sh
# Shared-memory races the emulator once missed (the mutation bench's
# survivors, t/data/races/): a warp's tree reduction without the __syncwarp
# between its loads and its store (independent thread scheduling: lane t
# stores s[t] while lane t - off reads it), and a shared histogram with the
# barrier after its zeroing, or before its flush, removed (plain store or
# load against another thread's atomicAdd in one barrier interval). Each is a
# race naming both threads and both lines, in fuzz and in check --auto; the
# correct samples and an equivalent mutant (a barrier removed in code the
# template arguments make dead) stay clean.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/races
S=$DG_SRCDIR/samples
rcf="${TMPDIR:-/tmp}/dg_rc.$$"

out=$(run_dirigo fuzz "$D/sum_rows_nosyncwarp/sum_rows_smem.lua" --cases 4)
is "$(cat "$rcf")" 1 "fuzz: warp tree without its first __syncwarp is a finding (exit 1)"
like "$out" "sum_rows_smem.cu:14:9: race: read-write of s\[byte 64\] by thread 0 and thread 16 in one barrier interval .* vs thread 0 at line 12:34" \
  "  a read-write race: thread 16's store (line 14) against thread 0's load of s[tid + off] (line 12)"
out=$(run_dirigo check "$D/sum_rows_nosyncwarp/sum_rows_smem.lua" --auto --no-journal --budget 20)
like "$out" "y\[0\] +race .*sum_rows_smem.cu:14:9: race: read-write .*thread 0 and thread 16" "check --auto: the same race"

out=$(run_dirigo fuzz "$D/histogram_nosync_zero/histogram_smem.lua" --cases 4)
is "$(cat "$rcf")" 1 "fuzz: histogram without the barrier after zeroing is a finding (exit 1)"
like "$out" "histogram_smem.cu:12:9: race: write-atomic of extern __shared__\[byte [0-9]+\] by thread [0-9]+ and thread [0-9]+ in one barrier interval .* vs thread [0-9]+ at line 8:55" \
  "  a write-atomic race: the atomicAdd (line 12) against the zeroing store (line 8)"
out=$(run_dirigo check "$D/histogram_nosync_zero/histogram_smem.lua" --auto --no-journal --budget 20)
like "$out" "h\[0\] +race .*histogram_smem.cu:12:9: race: write-atomic" "check --auto: the same race"

out=$(run_dirigo fuzz "$D/histogram_nosync_flush/histogram_smem.lua" --cases 4)
is "$(cat "$rcf")" 1 "fuzz: histogram without the barrier before the flush is a finding (exit 1)"
like "$out" "histogram_smem.cu:16:13: race: atomic-read of extern __shared__\[byte [0-9]+\] by thread [0-9]+ and thread [0-9]+ in one barrier interval .* vs thread [0-9]+ at line 12:9" \
  "  an atomic-read race: the load of bins[b] (line 16) against an atomicAdd (line 12)"
out=$(run_dirigo check "$D/histogram_nosync_flush/histogram_smem.lua" --auto --no-journal --budget 20)
like "$out" "h\[0\] +race .*histogram_smem.cu:16:13: race: atomic-read" "check --auto: the same race"

out=$(run_dirigo fuzz "$D/reduce6_deadsync/reduce6.lua" --cases 16)
is "$(cat "$rcf")" 0 "fuzz: reduce6 without a barrier in dead code (blockSize 256 < 512) passes"
out=$(run_dirigo check "$D/reduce6_deadsync/reduce6.lua" --at 0 --no-journal --budget 20)
like "$out" "y\[0\] +equivalent" "check: reduce6 without the dead barrier is equivalent"
ok "! printf '%s' \"\$out\" | grep -qE 'race: | race '" "  and no race"

for p in reduce/sum_rows_smem atomics/histogram_smem; do
  out=$(run_dirigo fuzz "$S/$p.lua" --cases 16)
  is "$(cat "$rcf")" 0 "fuzz: the correct $p passes"
  ok "! printf '%s' \"\$out\" | grep -qE 'race: | race '" "  without a race"
done
rm -f "$rcf"
done_testing
