#!/bin/sh
# A (check --auto) goes where `dirigo check --auto` goes: when every element
# at the spec's sizes is equivalent, on to boundary instances (one size at
# spec + 1, 1, spec - 1) and huge ones (an input past 2^31 elements), the
# engine's check_inst.h. A vectorised SiLU that drops the tail when
# N % 4 != 0 is proved at the spec's N = 1000; N = 1001 leaves y[1000]
# unwritten.
. "$DG_SRCDIR/t/tui/lib.sh"
cp "$DG_SRCDIR/t/data/specs/silu_vec4_tail.cu" "$DATA/"

# the wall clock in the status bar: keep the width, drop digits
unclock() { sed -i 's/  [0-9]* s  x cancel/  # s  x cancel/' "$T/$1"/*.txt; }

# 9 elements at the spec's sizes (3 progress units each), then y[1000] at N = 1001
tui_run tail 160x50 'A
<Wait 27>
<Dump>
<Tab>l
<Dump>
<Wait>
<Dump>
z
<Dump>' silu_vec4_tail.cu
unclock tail
tui_rc tail 0 "A on a kernel whose bug shows only at a boundary size: exit 0"
tui_has tail 001 "check --auto: 27/36 at N=1001: y[1000] concrete run  # s  x cancel" \
  "the progress line names the instance's sizes and the element"
tui_has tail 002 "picker  y[1]  of 1000" "keys move the picker while the instance is checked"
tui_has tail 002 "at N=1001: y[1000]" "and the progress line stays"
tui_has tail 003 "check --auto: a finding at other sizes than the spec's" "the result says the finding is not at the spec's sizes"
tui_has tail 004 "no finding at the spec's sizes; a boundary instance (N=1001 for 1000), at N=1001" "names the instance and which size moved"
tui_has tail 003 "replay: dirigo check silu_vec4_tail.cu --size N=1001 --at" "the command line that replays it"
tui_has tail 003 "(the picker stays on the spec's y: y[1000] is at other sizes)" "says the picker stays on the spec's tensor"
tui_has tail 003 "bug  y[1000]" "the verdict and the element"
tui_has tail 003 "picker  y[1]  of 1000" "the picker did not move to an element it does not have"
# z: the result pane alone
tui_has tail 004 "no thread writes this element" "the reason"
tui_has tail 004 "witness at N=1001 (seed 1)" "the witness's sizes"
tui_has tail 004 "(dirigo replay silu_vec4_tail.cu .dirigo/witness-silu_vec4_tail-y-1000.json replays it)" \
  "its witness file with the command that replays it (r replays the picker's element)"
tui_has tail 004 "check --auto: 10 elements checked (9 at the spec's sizes, 1 at other sizes), 9 equivalent" \
  "the counts, per sizes"
tui_has tail 004 "no finding so far; a boundary instance (N=1001 for 1000):" "the overview marks where the instance starts"
tui_has tail 004 "bug        y[1000]" "and ends at the finding"
tui_has tail 004 "y[999]" "after the spec's elements"

# the command line in the result pane, joined from its wrapped lines, is
# the command line's own: it checks that element alone, and finds the bug
line=$(tr '\n' ' ' < "$T/tail/004.txt" | \
  sed -n 's/.*replay: dirigo check \(silu_vec4_tail.cu --size N=1001 --at [0-9,]*\).*/\1/p')
(cd "$DATA" && "$DIRIGO" check $line --no-journal --no-gpu > "$T/replay.out" 2>&1; echo $? > "$T/replay.rc")
if [ -n "$line" ] && [ "$(cat "$T/replay.rc")" = 1 ] && grep -q "^y\[1000\] *bug *no thread writes" "$T/replay.out"
then tap 0 "the printed line ($line) finds the bug on the command line"
else tap 1 "the printed line ($line) finds the bug on the command line"; sed 's/^/# /' "$T/replay.out"; fi

# the command line finds the same thing
(cd "$DATA" && "$DIRIGO" check silu_vec4_tail.cu --auto --no-journal --no-gpu > "$T/cli.out" 2>&1)
if grep -q "boundary instance (N=1001 for 1000): dirigo check silu_vec4_tail.cu --size N=1001 --at 1000" "$T/cli.out"
then tap 0 "dirigo check --auto names the same instance and line"
else tap 1 "dirigo check --auto names the same instance and line"; sed 's/^/# /' "$T/cli.out"; fi

# an element the checker cannot decide (unknown) says nothing of the next
# one: A goes on, as --auto, through the spec's elements and every instance
cp "$DG_SRCDIR/t/data/specs/rowmax_every_lane.cu" "$DATA/"
tui_run unknown 160x50 'A
<Wait>
z
<Dump>' rowmax_every_lane.cu
tui_has unknown 001 "check --auto: 16 elements checked (9 at the spec's sizes, 7 at other sizes), 1 equivalent" \
  "unknown elements do not stop A: 7 instances after the spec's 9 elements"
tui_has unknown 001 "no finding so far; a boundary instance (N=65537 for 65536):" "boundary instances"
tui_has unknown 001 "no finding so far; a huge instance (an input past 2^31 elements):" "then a huge one"
tui_has unknown 001 "replay: dirigo check rowmax_every_lane.cu --size N=4194304 --size C=641 --at 4194303" \
  "the last element's result names its sizes and command line"

# x cancels the job while it checks an instance
tui_run cancel 160x30 'A
<Wait 27>
x
<Dump>' silu_vec4_tail.cu
tui_rc cancel 0 "cancelling at an instance keeps dirigo running"
tui_has cancel 001 "the check of the chosen elements was cancelled" "x cancels it"

tui_done
