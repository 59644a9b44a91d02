#!/bin/sh
# The tensor picker on a problem with a 3-D output (c[B][M][N]): moving,
# the slice of the hidden dim, choosing the shown dims, goto, the check key
# (the check runs in the background: <Wait> lets its result in).
. "$DG_SRCDIR/t/tui/lib.sh"

tui_run pick 100x30 '<Tab>
<Dump>
lljj
<Dump>
+
<Dump>
<PageDown>
<Dump>
<End>
<Dump>
<Home>d
<Dump>
s
<Dump>
g1,16,19<Enter>
<Dump>
g1,2<Enter>
<Dump>
g3,0,0<Enter>
<Dump>
t
<Dump>
c
<Wait>
<Dump>' bmm.lua
tui_rc pick 0 "exit 0"
tui_same pick 001 "the picker opens on c[0,0,0] with the slice d0 shown"
tui_style pick 001 "cells are styled unchecked, the cursor cell and indices highlighted"
tui_same pick 002 "hjkl move to c[0,2,2]"
tui_same pick 003 "+ steps the hidden dim: c[1,2,2]"
tui_same pick 004 "PageDown moves a page of rows"
tui_same pick 005 "End goes to the last element of the slice"
tui_same pick 006 "d shows another pair of dims"
tui_has pick 006 "c: rows dim 2, columns dim 0, dim 1 stepped by +/-" "and says which dims are rows and columns"
tui_same pick 007 "s picks the hidden dim that +/- steps"
tui_same pick 008 "g jumps to c[1,16,19]"
tui_has pick 009 "goto: c has 3 dims, got 2 indices" "goto with too few indices is refused"
tui_has pick 010 "goto: index 3 of dim 0 is outside 0..2" "goto out of range is refused"
tui_has pick 011 "c is the only output tensor" "t with one output says so"
tui_has pick 012 "equivalent  c[1,16,19]" "c checks the selected element: the naive bmm is equivalent"
# g takes the element as check prints it, name and brackets included
tui_run pickname 100x30 '<Tab>
gc[2,3,4]<Enter>
<Dump>
gq[0,0,0]<Enter>
<Dump>' bmm.lua
tui_has pickname 001 "picker  c[2,3,4]" "g c[2,3,4] goes there"
tui_has pickname 002 "goto: no output 'q' (outputs: c)" "another name says which outputs there are"
tui_has pick 012 "│ 19  · = ·" "the cell shows the verdict"
tui_style pick 012 "the verdict's style, and the lines that fed c[1,16,19]"

tui_run nospec 100x30 '<Tab>
j
<Dump>
c
<Dump>' saxpy.cu
tui_has nospec 001 "no output tensors: the picker needs a problem spec" "moving without a spec explains"
tui_has nospec 002 "check: needs a problem spec with" "check without a spec says what is missing"

tui_run badspec 100x30 '' badspec.lua
tui_has badspec 000 "badspec.lua:4:13: error: unknown op" "a bad spec names file:line:col"
tui_has badspec 000 "E  4" "and marks the line"
tui_done
