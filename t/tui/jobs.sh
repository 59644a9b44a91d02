#!/bin/sh
# Long work off the screen: a fuzz campaign and checks run in a child process
# while the screen keeps drawing; progress in the status bar, cancel, a child
# that crashes, hangs past its time limit or refuses a second job. <Wait N>
# lets the job's records in up to N units done, <Wait> to its end, so the
# dumps are the same on every run.
. "$DG_SRCDIR/t/tui/lib.sh"

# the wall clock in the status bar and the summary: keep the width, drop digits
unclock() { sed -i 's/  [0-9]* s  x cancel/  # s  x cancel/; s/in [0-9]\.[0-9][0-9] s/in #.## s/' "$T/$1"/*.txt; }

tui_run bg 160x30 ':fuzz regular<Enter>
<Dump>
<Wait 3>
<Dump>
<Tab>ll
<Dump>
<Wait>
<Dump>' relu_tail.lua
unclock bg
tui_rc bg 0 "a campaign in the background: exit 0"
tui_has bg 001 "░░░░░░░░░░░░ fuzz regular: starting  # s  x cancel" "it starts with an empty progress bar"
tui_same bg 002 "the progress bar after 3 of 40 cases"
tui_has bg 002 "unchecked, fuzz heat 0.00" "the heat map fills in while it runs"
tui_style bg 002 "the bar is styled"
tui_has bg 003 "picker  y[2]  of 40" "keys still move the picker while it runs"
tui_has bg 003 "fuzz regular: 3/40 cases" "and the bar stays"
tui_has bg 004 "fuzz on the emulator: strategy regular" "then the summary"
tui_has bg 004 "heat map of y: 28 cases at its shape" "and the heat map"
tui_has bg 004 "g goto  t tensor  q quit" "the status bar is back to the keys"

tui_run cancel 160x30 ':fuzz regular<Enter>
<Wait 2>
x
<Dump>
f
<Wait 1>
<C-c>
<Dump>
x
<Dump>' relu_tail.lua
tui_rc cancel 0 "cancelling keeps dirigo running"
tui_has cancel 001 "the fuzz was cancelled" "x cancels the campaign and says so"
tui_has cancel 001 "the fuzz campaign was cancelled" "the result pane says it too"
tui_has cancel 002 "the fuzz was cancelled" "<C-c> cancels a running job instead of quitting"
tui_has cancel 003 "nothing is running" "x with nothing running says so"

tui_run busy 160x30 ':fuzz regular<Enter>c<Dump>' relu_tail.lua
tui_has busy 001 "a fuzz is running (x cancels it)" "one job at a time"
tui_rc busy 0 "the end of the keys ends the running job too"

# opening another problem cancels the job: its results would name the old tensors
tui_run reopen 160x30 ':fuzz regular<Enter>
o
<Enter>
<Wait>
<Dump>' relu_tail.lua
tui_rc reopen 0 "opening another problem while a fuzz runs"
tui_has reopen 001 "nothing checked yet" "leaves the new one's result pane empty"

DIRIGO_TEST_CHILD_CRASH=1; export DIRIGO_TEST_CHILD_CRASH
tui_run crash 160x30 '<Tab>g31<Enter>c
<Wait>
<Dump>
h
<Dump>
f
<Wait>
<Dump>' relu_tail.lua
unset DIRIGO_TEST_CHILD_CRASH
tui_rc crash 0 "a crashing child does not take the screen down"
tui_has crash 001 "the check of y[31] crashed: killed by signal 11" "the crash is the check's result"
tui_has crash 001 "the screen is fine" "said plainly"
tui_has crash 001 "the check crashed: killed by signal 11" "and on the status line"
tui_has crash 002 "picker  y[30]  of 40" "keys work after the crash"
tui_has crash 003 "the fuzz campaign crashed: killed by signal 11" "a crashing fuzz too"

DIRIGO_TEST_CHILD_CRASH=exit; export DIRIGO_TEST_CHILD_CRASH
tui_run exit 160x30 'f<Wait><Dump>' relu_tail.lua
unset DIRIGO_TEST_CHILD_CRASH
tui_has exit 001 "the fuzz campaign crashed: exited with status 3; the screen" "a child that exits without its results"

DIRIGO_TEST_CHILD_HANG=1 DIRIGO_TUI_JOB_LIMIT=1; export DIRIGO_TEST_CHILD_HANG DIRIGO_TUI_JOB_LIMIT
tui_run hang 160x30 'c<Wait><Dump>' relu_tail.lua
unset DIRIGO_TEST_CHILD_HANG DIRIGO_TUI_JOB_LIMIT
tui_has hang 001 "ran past its time limit of 1 s and was stopped" "a hung child is stopped at its time limit"
# 80 columns: a key refused while a job runs says why in full (the progress label left no room)
DIRIGO_TEST_CHILD_HANG=1; export DIRIGO_TEST_CHILD_HANG
tui_run busy 80x24 '<Tab>c<Dump>c<Dump>x<Dump>' relu_tail.lua
unset DIRIGO_TEST_CHILD_HANG
tui_has busy 002 "a check is running (x cancels it)" "80 columns: the message for c while a check runs is not cut"
tui_has busy 003 "the check was cancelled" "x cancels it"

# the workbench killed while its child works: the child dies with it (Linux)
if command -v pgrep >/dev/null 2>&1 && [ "$(uname -s)" = Linux ]; then
  mkdir -p "$T/orphan"
  printf 'c<Wait>\n' > "$T/orphan.keys"
  (cd "$DATA" && DIRIGO_TEST_CHILD_HANG=1 exec "$DIRIGO" --headless 100x30 --keys "$T/orphan.keys" \
     --dump "$T/orphan" relu_tail.lua) 2>/dev/null &
  wpid=$!
  i=0; while [ $i -lt 50 ] && [ "$(pgrep -f -- "$T/orphan" | wc -l)" -lt 2 ]; do sleep 0.1; i=$((i + 1)); done
  n_before=$(pgrep -f -- "$T/orphan" | wc -l)
  kill -KILL $wpid; wait $wpid 2>/dev/null
  i=0; while [ $i -lt 50 ] && pgrep -f -- "$T/orphan" >/dev/null; do sleep 0.1; i=$((i + 1)); done
  n_after=$(pgrep -f -- "$T/orphan" | wc -l)
  [ "$n_before" -eq 2 ] && [ "$n_after" -eq 0 ]; tap $? "a killed workbench takes its child with it ($n_before then $n_after processes)"
else
  echo "ok $((tap_n + 1)) # SKIP no pgrep or not Linux"; tap_n=$((tap_n + 1))
fi

tui_run strat 160x30 'F
<Dump>
jj<Enter>
<Dump>
f
<Wait>
<Dump>' relu_tail.lua
tui_has strat 001 "fuzz strategy for f" "F lists the strategies"
tui_has strat 001 "boundary+adversarial — " "the built-ins"
tui_has strat 001 "primes (Lua) — " "and the Lua ones"
tui_has strat 002 "f now fuzzes with strategy adversarial" "picking one says so"
tui_has strat 003 "fuzz on the emulator: strategy adversarial" "and f runs it"

tui_run auto 160x30 'A
<Dump>
<Wait>
<Dump>' relu_tail.lua
tui_has auto 001 "check --auto: starting" "A starts check --auto"
tui_has auto 002 "check --auto: 3 elements checked, 2" "it checks chosen elements"

# every element proved at the spec's sizes; then, as `dirigo check --auto`,
# boundary and huge instances (t/tui/auto.sh): bmm's int offsets overflow
# at a huge instance
tui_run autook 200x40 'A
<Wait>
<Dump>' bmm.lua
tui_has autook 001 "equivalent" "A on a correct kernel: proved"
tui_has autook 001 "out-of-bounds  c[" "then other sizes, as the command line: a huge instance"
tui_has auto 002 "bug        y[31]" "and stops at the lane-31 bug"
tui_has auto 002 "picker  y[31]  of 40" "the picker moves to the finding"
tui_has auto 002 "▌  6   else if (i < N) y[i] = x[i];" "its slice is marked"

tui_run replay 160x30 '<Tab>r
<Dump>
g31<Enter>c
<Wait>
r
<Dump>
<Wait>
<Dump>' relu_tail.lua
tui_has replay 001 "no witness for y[0]: only a check that found a bug leaves one" "r without a witness says why"
tui_has replay 002 "replay y[31]: starting" "r replays in the background"
tui_has replay 003 "replay of .dirigo/witness-relu_tail-y-31.json:" "the witness file of the check"
tui_has replay 003 "the element still differs: bug  y[31]" "still differs"
tui_done
