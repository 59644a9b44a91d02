#!/bin/sh
# The top level: help, --version, and a word that is neither a command nor a
# file (a typo of a command must not reach the workbench).
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
rcf="${TMPDIR:-/tmp}/dg_rc.$$"
out=$(run_dirigo --help 2>&1)
is "$(cat "$rcf")" 0 "--help: exit 0"
like "$out" "^  dirigo check  PROBLEM" "--help lists check with its usage"
like "$out" "^                prove output elements equal" "and what it does on the next line, aligned"
# the options the README and each command's own usage give are in the overview too
like "$out" "^  dirigo check  PROBLEM .*--budget S.*--size NAME=V" "--help: check's --budget and --size"
like "$out" "^  dirigo fuzz   PROBLEM .*--backend cpu\\|gpu.*--sizes spec\\|realistic" "--help: fuzz's --backend and --sizes"
out=$(run_dirigo chek x.lua 2>&1)
is "$(cat "$rcf")" 2 "a typo of a command: exit 2"
like "$out" "'chek' is neither a command nor a file; commands: parse fuzz check" "that lists the commands"
out=$(run_dirigo --version 2>&1)
like "$out" "^dirigo [0-9]" "--version"
rm -f "$rcf"
done_testing
