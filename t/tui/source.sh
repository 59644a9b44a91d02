#!/bin/sh
# The source pane: first paint of a kernel with no spec (highlighting, line
# numbers, the picker's "no spec" message), moving, search, the kernel list.
. "$DG_SRCDIR/t/tui/lib.sh"

tui_run open 100x30 'j
<Dump>
/y[i]<Enter>
<Dump>
n
<Dump>
K
<Dump>
j<Enter>
<Dump>
G
<Dump>
[
<Dump>' "saxpy.cu"
tui_rc open 0 "opening a .cu exits 0 at the end of the keys"
tui_same open 000 "first paint: highlighted source, no-spec message"
tui_style open 000 "first paint: capture styles per cell"
tui_same open 001 "j moves the cursor line"
tui_style open 001 "the cursor line draws over the captures"
tui_same open 002 "search /y[i] finds line 9"
tui_same open 003 "n finds the next match"
tui_same open 004 "K lists the __global__ kernels"
tui_same open 005 "picking saxpy_twice jumps to line 12"
tui_same open 006 "G goes to the last line"
tui_same open 007 "[ goes to the kernel above"

tui_run nomatch 100x30 '/no such text<Enter><Dump>' "saxpy.cu"
tui_has nomatch 001 "not found: no such text" "a failed search says so"

tui_run broken 100x30 '' "broken.cu"
tui_has broken 000 "E  3" "a syntax error is marked in the gutter"
tui_has broken 000 "error: syntax error" "and explained on its line"

# long lines scroll sideways; wide characters take two cells
tui_run wide 100x30 '15G
llllll
<Dump>' saxpy.cu
tui_same wide 001 "l scrolls right; the CJK characters are two cells wide"

# the next diagnostic, with its message in the status line
tui_run diag 100x30 'e<Dump>' broken.cu
tui_has diag 001 "3:22: error: syntax error" "e jumps to the diagnostic and says it"

tui_run missing 100x30 '' no-such-file.cu
tui_rc missing 2 "a missing file exits 2"
if grep -q "no-such-file.cu: No such file" "$T/missing.err"; then tap 0 "and names the file"; else tap 1 "and names the file"; fi
tui_done
