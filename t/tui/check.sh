#!/bin/sh
# The symbolic check from the workbench: the verdict colours the cell, the
# lines that fed the element are marked, the result pane explains.
. "$DG_SRCDIR/t/tui/lib.sh"

tui_run check 110x30 '<Tab>
g31<Enter>
c
<Wait>
<Dump>
g0<Enter>
c
<Wait>
<Dump>' relu_tail.lua
tui_has check 001 "bug  y[31]" "y[31] (lane 31) is a bug"
tui_has check 001 "replayed: kernel -0.5, reference 0" "with the replayed numbers"
tui_has check 001 "written by block 0 thread 31 of launch 1" "and the writer thread"
tui_has check 001 "▌  6   else if (i < N) y[i] = x[i];" "the lines that fed it are marked"
tui_style check 001 "the bug cell and the fed marks are styled"
tui_has check 002 "equivalent  y[0]" "y[0] is proved equivalent"
tui_has check 002 "   6   else if (i < N) y[i] = x[i];" "the other branch did not feed y[0]"
tui_style check 002 "both verdicts stay on the grid"

tui_run enter 110x30 '<Tab>g31<Enter><Enter><Wait><Dump>' relu_tail.lua
tui_has enter 001 "bug  y[31]" "Enter in the picker checks the element"

# Lua hooks from the user's init.lua
mkdir -p "$T/config/dirigo"
cat > "$T/config/dirigo/init.lua" <<'LUA'
function workbench.on_check(verdict, tensor, idx)
  workbench.message("hook: " .. verdict .. " " .. tensor .. "[" .. table.concat(idx, ",") .. "]")
end
LUA
tui_run hook 110x30 '<Tab>g31<Enter>c<Wait><Dump>' relu_tail.lua
tui_has hook 001 "hook: bug y[31]" "init.lua's workbench.on_check runs after a check"
echo 'error("bad init")' > "$T/config/dirigo/init.lua"
tui_run badinit 110x30 '' relu_tail.lua
tui_has badinit 000 "init.lua:1: bad init" "an error in init.lua is shown, the screen still opens"

tui_run nospec 100x30 'c<Dump>' saxpy.cu
tui_has nospec 001 "check: needs a problem spec with" "check without a spec says what is missing"
# the kernel edited on disk while the screen shows it: c says so instead of checking the old
# version, :reload loads the new one (here the bug fixed: y[31] is then equivalent)
mkdir -p "$DATA/edit" && cp "$DATA/relu_tail.lua" "$DATA/relu_tail.cu" "$DATA/edit/"
tui_run edited 110x30 ':lua local f = io.open(workbench.source); local t = f:read("a"); f:close(); f = io.open(workbench.source, "w"); f:write((t:gsub("threadIdx.x != 31", "true"))); f:close()<Enter>
<Tab>g31<Enter>c<Dump>
:reload<Enter>
<Dump>
<Tab>g31<Enter>c<Wait><Dump>' edit/relu_tail.lua
tui_has edited 001 "changed on disk since it was opened" "a check of a file changed on disk says so"
tui_has edited 002 "reloaded edit/relu_tail.lua" ":reload loads it again"
tui_has edited 003 "equivalent  y[31]" "and the check sees the edited kernel"
# the spec edited, the kernel not: the message names the spec, not the kernel
mkdir -p "$DATA/edspec" && cp "$DATA/relu_tail.lua" "$DATA/relu_tail.cu" "$DATA/edspec/"
tui_run edspec 110x30 ':lua local f = io.open(workbench.path, "a"); f:write("-- edited\\n"); f:close()<Enter>
<Tab>c<Dump>' edspec/relu_tail.lua
tui_has edspec 001 "edspec/relu_tail.lua changed on disk since it was opened" "a spec changed on disk: the message names the spec"
# A stopping at its first element counts it in the singular
mkdir -p "$DATA/first" && sed 's/!= 31/!= 0/' "$DATA/relu_tail.cu" > "$DATA/first/relu_tail.cu" && cp "$DATA/relu_tail.lua" "$DATA/first/"
tui_run first 110x30 'A<Wait><Dump>' first/relu_tail.lua
tui_has first 001 "check --auto: 1 element checked," "one element checked: 'element', not 'elements'"
# a kernel opened by its .cu while its spec (same name, .lua) is beside it: the problem opens
tui_run cuspec 110x30 '<Tab>g31<Enter>c<Wait><Dump>' relu_tail.cu
tui_has cuspec 001 "relu_tail.lua (relu_tail.cu)" "FILE.cu with FILE.lua beside it opens the problem"
tui_has cuspec 001 "bug  y[31]" "and c checks it"
tui_done
