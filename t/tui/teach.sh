#!/bin/sh
# The teaching tabs of the result pane after a check: the slice (lines that
# fed the element, also marked in the source), the kernel's and the
# reference's terms, the SMT-LIB query, and the writer thread's steps
# (statement by statement, what each set and its value as a term; a for
# loop's update and each decided condition as steps of their own). The marks
# follow the selected element's own last check.
. "$DG_SRCDIR/t/tui/lib.sh"
cp "$DG_SRCDIR"/samples/elementwise/leaky_relu_macro.cu "$DG_SRCDIR"/samples/elementwise/leaky_relu_macro.lua "$DATA"/

tui_run leaky 160x40 '<Tab>c
<Wait>
<Tab>2
<Dump>
3
<Dump>
4
<Dump>
5
<Dump>
v
<Dump>
<S-Tab>l
<Dump>' leaky_relu_macro.lua
tui_rc leaky 0 "exit 0"
tui_same leaky 001 "slice tab: the lines that fed y[0], marked in the source too"
tui_style leaky 001 "the slice tab is the selected one"
tui_same leaky 002 "terms tab: the kernel's term (the fp32 slope) and the reference's"
tui_has leaky 003 "SMT-LIB query for y[0] (its " "smt tab: the query"
tui_has leaky 003 "(assert" "with its assertion"
tui_has leaky 004 "11 steps of the writer thread (block 0 thread 0 of launch 1)," "steps tab: the writer thread's steps"
tui_has leaky 004 "const float v = __ldg(x + i);   -> v = x[0]" "each statement with what it set and the value as a term"
tui_has leaky 005 "equivalent  y[0]" "v cycles back to the summary"
tui_has leaky 006 "equivalent  y[0]" "the summary stays on the last result"
tui_has leaky 006 "picker  y[1]" "after moving on"

tui_run steps 110x30 '<Tab>g31<Enter>c
<Wait>
<Tab>5
<Dump>' relu_tail.lua
tui_same steps 001 "steps tab of a bug: the writer thread's statements, the store's value as a term"

tui_run walk 150x30 '<Tab>c
<Wait>
<Tab>5
n
n
n
<Dump>
n
n
<Dump>
p
p
p
p
<Dump>' leaky_relu_macro.lua
tui_has walk 001 "step 3 of 11 (n next, p back; the source shows its line):" "n walks the steps: the third"
tui_has walk 001 "▶   3   13:54  i < N   -> true: taken" "marked: the grid-stride loop's test, taken"
tui_has walk 001 "source  line 13/17" "the source goes to its line"
tui_has walk 002 "▶   5   15:9   y[i] = LEAKY(v);   -> y[0] = 0 < x[0] ?" "n n: the store"
tui_has walk 002 "source  line 15/17" "and its line"
tui_has walk 002 "    6   13:61  i += gridDim.x * THREADS   -> i = 512" "the loop's update next, with the new index"
tui_has walk 003 "▶   1   13:5   for (int i = blockIdx.x * THREADS +" "p walks back, and stops at the first step"
tui_has walk 003 "source  line 13/17" "the loop's line"
tui_same walk 002 "the walked steps tab: the two steps before the current one, then the rest"

tui_run nowalk 100x30 '<Tab><Tab>n
<Dump>' leaky_relu_macro.lua
tui_has nowalk 001 "no steps to walk for y[0]: c checks it" "n before a check says what to do"

tui_run zoom 100x30 '<Tab>c
<Wait>
z4
<Dump>
G
<Dump>
<Tab>
<Dump>' leaky_relu_macro.lua
tui_has zoom 001 " result: summary slice terms smt steps" "z: the result pane takes the whole screen"
tui_has zoom 001 "(assert (<= |x[0]| 340282346638528859811704183484516925440.0))" "wide enough for the query's lines"
tui_has zoom 002 "(declare-fun |x[" "G scrolls to the end of the query: its declarations"
tui_has zoom 003 "picker  y[0]  of 777" "Tab brings the panes back"

tui_run back 110x30 '<Tab>c<Wait><Tab>3:lua print("from lua")<Enter><Dump>' relu_tail.lua
tui_has back 001 "from lua" "other results (here :lua) show on the summary tab"

tui_run follow 110x30 '<Tab>g31<Enter>c
<Wait>
g0<Enter>c
<Wait>
g31<Enter>
v
<Dump>
g5<Enter>
<Dump>' relu_tail.lua
tui_has follow 001 "▌  6   else if (i < N) y[i] = x[i];" "back on y[31], its own slice is marked again"
tui_has follow 001 "3 lines fed y[31]" "and listed in the slice tab"
tui_has follow 001 "relu_tail.cu:6:   else if (i < N) y[i] =" "with the line that made the bug"
tui_has follow 002 "y[5] has not been checked yet" "an unchecked element says so"
tui_done
