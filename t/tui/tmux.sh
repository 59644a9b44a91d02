#!/bin/sh
# Smoke test of the real curses backend under tmux: first paint, keys, the
# help, quit; and the terminal given back when the process is killed.
# Skipped (TAP 1..0 # SKIP) when configure found no tmux.
case ${DG_TMUX:-no} in
  no|"") echo "1..0 # SKIP tmux not found by configure (DG_TMUX)"; exit 0 ;;
esac
[ -x "$DG_TMUX" ] || { echo "1..0 # SKIP $DG_TMUX is not executable"; exit 0; }
. "$DG_SRCDIR/t/tui/lib.sh"
SOCK=$T/tmux.sock
tm() { "$DG_TMUX" -S "$SOCK" "$@"; }
trap '"$DG_TMUX" -S "$T/tmux.sock" kill-server 2>/dev/null; "$DG_TMUX" -S "$T/tmux2.sock" kill-server 2>/dev/null; "$DG_TMUX" -S "$T/tmux3.sock" kill-server 2>/dev/null; rm -rf "$T"' EXIT

# wait_for TEXT: poll the pane (up to ~5 s) until TEXT shows
wait_for() {
  i=0
  while [ $i -lt 50 ]; do
    tm capture-pane -p -t dg > "$T/pane.txt" 2>/dev/null
    grep -qF -- "$1" "$T/pane.txt" && return 0
    sleep 0.1; i=$((i + 1))
  done
  return 1
}

cd "$DATA"
tm -f /dev/null new-session -d -s dg -x 100 -y 30 \
  "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 '$DIRIGO' saxpy.cu; echo \"exit=\$?\"; sleep 30"
wait_for "kernel saxpy"; tap $? "curses: first paint shows the source pane"
grep -qF "6 __global__ void saxpy" "$T/pane.txt"; tap $? "with line numbers"
tm send-keys -t dg j
wait_for "line 7/22"; tap $? "j moves the cursor"
tm send-keys -t dg '?'
wait_for "help — keys"; tap $? "? opens the help"
tm send-keys -t dg q
wait_for "line 7/22"; tap $? "q closes the help"
tm resize-window -t dg -x 60 -y 24 2>/dev/null
i=0; ok=1
while [ $i -lt 50 ]; do
  tm capture-pane -p -t dg > "$T/pane.txt"
  if grep -q "^ picker" "$T/pane.txt"; then ok=0; break; fi
  sleep 0.1; i=$((i + 1))
done
tap $ok "a resize (SIGWINCH) redraws in the narrow layout"
tm send-keys -t dg q
wait_for "exit=0"; tap $? "q quits with exit 0 and gives the terminal back"

# killed by a signal: the terminal is restored and the shell prints after it
tm kill-server 2>/dev/null
SOCK=$T/tmux2.sock                         # a fresh server, no race with the old one
tm -f /dev/null new-session -d -s dg -x 100 -y 30 \
  "env TERM=xterm-256color '$DIRIGO' saxpy.cu </dev/tty & pid=\$!; sleep 1; kill -TERM \$pid; wait \$pid; echo \"killed=\$?\"; stty -a | grep -q ' echo ' && echo echo-on; sleep 30"
wait_for "killed=143"; tap $? "SIGTERM ends dirigo with the signal"
wait_for "echo-on"; tap $? "and the terminal modes are restored (echo on)"

# a job in the background: the screen keeps reading keys while the child
# runs (here it hangs on purpose), the clock ticks, x cancels it
tm kill-server 2>/dev/null
SOCK=$T/tmux3.sock
tm -f /dev/null new-session -d -s dg -x 110 -y 30 \
  "env TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 DIRIGO_TEST_CHILD_HANG=1 '$DIRIGO' relu_tail.lua; echo \"exit=\$?\"; sleep 30"
wait_for "kernel relu_tail"; tap $? "curses: relu_tail opens"
tm send-keys -t dg c
wait_for "check y[0]: starting"; tap $? "c starts the check in the background"
wait_for "1 s  x cancel"; tap $? "the status bar's clock ticks while it runs"
tm send-keys -t dg j
wait_for "line 3/7"; tap $? "keys still work while the check runs"
tm send-keys -t dg x
wait_for "the check was cancelled"; tap $? "x cancels it"
tm send-keys -t dg q
wait_for "exit=0"; tap $? "and q quits with exit 0"
tui_done
