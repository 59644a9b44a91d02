#!/bin/sh
# size_t indices wrap as the GPU's 64-bit address arithmetic does (session 10):
# the emulator used to place any size_t index >= 2^63 far past the buffer's
# end, so x[(size_t)0 + A * 40] with an overflowed int was "byte -4", and a
# row pointer read at row[(size_t)-2] (inside the tensor) read row[-1]: a
# false bug under check, out of bounds under fuzz.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
D=$DG_SRCDIR/t/data/sizet
rc_() { cat "${TMPDIR:-/tmp}/dg_rc.$$"; }

out=$(run_dirigo check "$D/negidx.lua" --at 0 --no-journal --no-gpu)
is "$(rc_)" 1 "negidx: exit 1 (the load is out of bounds)"
like "$out" "negidx.cu:7:23: out-of-bounds: load of 4 bytes at byte -8589934464 of x " \
  "at the byte the GPU's wrapped address gives (-2147483616 floats before x)"

out=$(run_dirigo check "$D/prev.lua" --at 37 --no-journal --no-gpu)
is "$(rc_)" 0 "prev: row[(size_t)(j - 2)] inside x is no finding (exit 0)"
like "$out" "^y\[37\] +equivalent" "and y[37] is proved equal to the reference"
out=$(run_dirigo fuzz "$D/prev.lua" --strategy boundary --cases 4)
is "$(rc_)" 0 "fuzz prev: every case passes"
done_testing
