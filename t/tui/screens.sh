#!/bin/sh
# Whole screens: help from the key table, resize, a bad key, the command
# line, the gallery (no argument), a .cu without a spec.
. "$DG_SRCDIR/t/tui/lib.sh"

tui_run help 100x30 '?
<Dump>
j
<Dump>
q
<Dump>' saxpy.cu
tui_same help 001 "? shows the help generated from the key table"
tui_same help 002 "j scrolls the help"
tui_same help 003 "q closes the help"
tui_run helpend 100x30 '?G<Dump>' saxpy.cu
tui_has helpend 001 "· ░ ▒ ▓ █          fuzz heat" "G ends the help at the legend of the picker's cells"
# at 80x24 a help text longer than the line wraps under itself instead of being cut,
# and the ':' commands are listed from their table (the README names :reload, :lua)
tui_run help80 80x24 '?G<Dump>' saxpy.cu
tui_has help80 001 "                                    element: 0, to 1/4, 1/2, 3/4, 1" "80 columns: the legend's text wraps under itself"
tui_has help80 001 ":reload                          open the spec and kernel again" "the help lists the : commands"
tui_has help80 001 ":lua               CODE          evaluate Lua" "with their arguments"
# 80x24: the result pane is narrow; every tab keeps its name (steps was cut off)
tui_run tabs80 80x24 '<Tab>c<Wait>vvvv<Dump>' bmm.lua
tui_has tabs80 001 "│ summary slice terms smt steps" "80 columns: the result pane shows all five tab names"
# <C-c> while :lua loops stops the Lua, not dirigo (read after the loop, it used to quit)
tui_run luaint 100x30 ':lua while true do end<Enter><C-c>j<Dump>' saxpy.cu
tui_has luaint 001 ":lua:1: interrupted (<C-c>)" "<C-c> stops an endless :lua and the workbench stays"
tui_has luaint 001 "line 7/22" "a key typed while the Lua ran is not lost"

tui_run resize 100x30 '<Resize 60x20>
<Dump>
<Resize 140x40>
<Dump>
<Resize 12x5>
<Dump>' bmm.lua
tui_same resize 001 "narrow: panes stacked"
tui_same resize 002 "wide: side by side"
tui_has resize 003 "too small" "a tiny terminal says so"

tui_run badkey 100x30 'Z
<Dump>
j
<Dump>' saxpy.cu
tui_has badkey 001 "Z is not bound here; ? lists the keys" "an unbound key is reported"
tui_same badkey 002 "the next key clears the report"

tui_run cmd 100x30 ':frob<Enter>
<Dump>
:lua print(1)<Enter>
<Dump>
:12<Enter>
<Dump>
:theme nosuch<Enter>
<Dump>
:kernel saxpy_twice<Enter>
<Dump>
:check now<Enter>
<Dump>
:999<Enter>
<Dump>
:q<Enter>' saxpy.cu
tui_has cmd 001 "unknown command :frob" "unknown commands are reported"
tui_has cmd 002 "lua> print(1)" ":lua echoes the code"
tui_has cmd 003 "line 12/22" ":12 goes to line 12"
tui_has cmd 004 "theme 'nosuch' not found" "a missing theme is reported"
tui_has cmd 005 "kernel saxpy_twice" ":kernel jumps to a kernel"
tui_has cmd 006 ":check takes no argument (got 'now')" "a command without arguments refuses one"
tui_has cmd 007 "line 999 is past the end of the file: at its last line, 22" ":999 past the end says so"
tui_rc cmd 0 ":q quits with 0"

tui_run lua 100x30 '<Tab>l
:lua workbench.selected()<Enter>
<Dump>
:lua error("boom")<Enter>
<Dump>
:lua workbench.line(9); print("went", 9)<Enter>
<Dump>
:lua dirigo.ops()[1] ~= nil<Enter>
<Dump>' bmm.lua
tui_has lua 001 "c {0, 0, 1}" ":lua sees the picker's selection"
tui_has lua 002 "error: :lua:1: boom" "a Lua error is shown"
tui_has lua 002 "stack traceback:" "with its traceback"
tui_has lua 003 "line 9/12" "workbench.line moves the source pane"
tui_has lua 003 "went 9" "print goes to the result pane"
tui_has lua 004 "true" "the dirigo module is there"

# an endless loop at :lua is stopped (the screen would hang forever); the
# workbench goes on. Under timeout, so that a regression fails, not hangs.
printf '#!/bin/sh\nexec timeout 120 "%s" "$@"\n' "$DIRIGO" > "$T/dg_timeout"; chmod +x "$T/dg_timeout"
DIRIGO_SAVED=$DIRIGO; DIRIGO=$T/dg_timeout
tui_run lualoop 100x30 ':lua while true do end<Enter>
<Dump>
:lua print(6 * 7)<Enter>
<Dump>' bmm.lua
DIRIGO=$DIRIGO_SAVED
tui_rc lualoop 0 ":lua with an endless loop: the workbench is not stuck"
tui_has lualoop 001 "error: :lua:1: runs too long (an" "the loop is stopped with a message"
tui_has lualoop 002 "42" ":lua works after it"

# a private data dir: the real themes and grammar, our own samples
D=$T/datadir
mkdir -p "$D/samples/demo" "$D/samples/empty"
ln -s "$DG_SRCDIR/themes" "$DG_SRCDIR/grammars" "$DG_SRCDIR/lua" "$D/"
cp "$DATA/bmm.lua" "$DATA/bmm.cu" "$DATA/saxpy.cu" "$D/samples/demo/"
# scripts/ holds Lua scripts (dirigo run), not problems: the gallery leaves it out, as sweep does
mkdir -p "$D/samples/scripts" && printf 'print(dirigo.version)\n' > "$D/samples/scripts/session.lua"
DIRIGO_DATADIR=$D; export DIRIGO_DATADIR
tui_run gallery 100x30 'j
<Dump>
<Enter>
<Dump>
o
<Dump>'
unset DIRIGO_DATADIR
sed -i "s|$D|DATADIR|g" "$T"/gallery/*.txt
tui_same gallery 000 "no argument: the gallery of samples"
tui_same gallery 001 "j selects the next problem"
tui_has gallery 002 "saxpy.cu" "Enter opens it"
tui_has gallery 003 "demo/bmm.lua" "o goes back to the gallery"
DIRIGO_DATADIR=$D; export DIRIGO_DATADIR
tui_run filter 100x30 '/SAXPY<Enter>
<Dump>
/nothing like it<Enter>
<Dump>
/<Enter>
<Dump>'
unset DIRIGO_DATADIR
tui_has filter 001 "1 of 2 problems matching 'SAXPY'" "/ filters the gallery (any case)"
tui_has filter 001 "demo/saxpy.cu" "to the matching problem"
tui_has filter 002 "nothing matches" "a filter matching nothing says so"
tui_has filter 003 "2 problems in" "an empty filter shows all again"
# a data dir named through build/..: what opens from the gallery is named without the
# "..", relative to the working directory when it is under it (the title keeps the file name)
mkdir -p "$DATA/dd/build" && ln -s "$D/samples" "$D/themes" "$D/grammars" "$D/lua" "$DATA/dd/"
DIRIGO_DATADIR=$DATA/dd/build/..; export DIRIGO_DATADIR
tui_run galpath 100x30 '<Enter><Dump>'
unset DIRIGO_DATADIR
tui_has galpath 001 " dirigo — $(cd "$D" && pwd -P)/samples/demo/bmm.lua (" "a problem opened from the gallery is named without build/.."

# a bad theme line: reported with file:line:col, the rest still loads
mkdir -p "$T/config/dirigo/themes"
printf 'keyword = fg=#c678dd,bold\nstring = fg=nonsense\n' > "$T/config/dirigo/themes/mine.theme"
tui_run theme 100x30 '' --theme mine saxpy.cu
tui_has theme 000 "mine.theme:2:10: error: 'fg=nonsense'" "a bad theme line is shown with file:line:col"
if grep -q "keyword" "$T/theme/000.style"; then tap 0 "the good lines still style the source"; else tap 1 "the good lines still style the source"; fi
# usage errors of the headless mode
tui_run badscript 100x30 'j<Frob>' saxpy.cu
tui_rc badscript 2 "a bad key name in the script exits 2"
grep -q "badscript.keys:1:2: error: unknown key name" "$T/badscript.err"; tap $? "naming file:line:col"
(cd "$DATA" && "$DIRIGO" --headless 5x5 --keys /dev/null saxpy.cu 2>"$T/size.err"); rc=$?
[ $rc -eq 2 ] && grep -q "wants WxH" "$T/size.err"; tap $? "a bad --headless size exits 2 and says why"

(cd "$DATA" && "$DIRIGO" --headless 80x24 --keys /dev/null --dump "$T/new-dir" saxpy.cu); rc=$?
[ $rc -eq 0 ] && [ -f "$T/new-dir/000.txt" ]; tap $? "--dump creates its directory"
(cd "$DATA" && "$DIRIGO" --headless 80x24 --keys /dev/null --dump "$T/no/such/dir" saxpy.cu 2>"$T/dump.err"); rc=$?
[ $rc -eq 2 ] && grep -q "no/such/dir: No such file" "$T/dump.err"; tap $? "a --dump that cannot be made exits 2 and says why"

# --mono: attributes only; the style names are the same, the colours go
tui_run mono 100x30 '' --mono --theme mono saxpy.cu
tui_rc mono 0 "--mono --theme mono runs"
grep -q "keyword.cuda" "$T/mono/000.style"; tap $? "mono keeps the style names"
tui_done
