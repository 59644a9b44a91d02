#!/bin/sh
# A scalar local declared without a value starts uninitialised (the engine
# keeps it in memory with its bytes poisoned): reading it before a write is
# an uninitialised-read finding naming the variable, in fuzz and check; a
# kernel that writes it first is fine.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/uninit

out=$(run_dirigo fuzz "$D/rowsum_uninit.lua" --cases 4)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "fuzz: an accumulator never set to zero is a bug (exit 1)"
like "$out" "rowsum.cu:9:33: uninitialised-read: load of 4 bytes at byte 0 of local s, never written" \
  "an uninitialised read of local s, at its read"
out=$(run_dirigo check "$D/rowsum_uninit.lua" --at 2)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 1 "check: the same"
like "$out" "y\[2\] +uninitialised-read .*of local s" "as an uninitialised read"

out=$(run_dirigo fuzz "$D/rowsum_late.lua" --cases 4)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
is "$rc" 0 "fuzz: declared without a value, written before any read: passes"
out=$(run_dirigo check "$D/rowsum_late.lua" --at 2)
rc=$(cat "${TMPDIR:-/tmp}/dg_rc.$$")
like "$out" "y\[2\] +equivalent" "check: equivalent"
done_testing
