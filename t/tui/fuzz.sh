#!/bin/sh
# Fuzzing from the workbench: a campaign on the emulator, its summary in the
# result pane, the heat map in the picker (a kernel wrong on lane 31).
. "$DG_SRCDIR/t/tui/lib.sh"

tui_run fuzz 110x30 '<Tab>
:fuzz regular<Enter>
<Wait>
g31<Enter>
<Dump>
<Tab>jjjjjjjjj
<Dump>
:fuzz nosuch<Enter>
<Dump>' relu_tail.lua
# wall-clock times differ from run to run: keep their width, drop the digits
sed -i 's/in [0-9]\.[0-9][0-9] s/in #.## s/' "$T"/fuzz/*.txt
tui_has fuzz 001 "fuzz on the emulator: strategy regular" "the campaign's summary is shown"
tui_has fuzz 001 "FAIL at case 0 (N=40 normal): y[31]:" "with its first failure"
# exact heat (every failing element of every case at the shown shape, N=40):
# y[31] failed in 10 of 28 cases (where x[31] < 0)
tui_has fuzz 001 "unchecked, fuzz heat 0.36" "y[31] is hot in the heat map"
tui_same fuzz 001 "the heat map and the summary"
tui_style fuzz 001 "heat styles in the picker"
tui_has fuzz 002 "fuzz:regular:1:0@N=32" "a replayable witness"
tui_has fuzz 003 "fuzz: unknown strategy 'nosuch'; known: regular" "an unknown strategy is named"

tui_run nospec 100x30 'f<Dump>' saxpy.cu
tui_has nospec 001 "fuzz: needs a problem spec with" "fuzz without a spec says what is missing"
tui_done
