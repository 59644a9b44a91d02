#!/bin/sh
# check-replay.sh — `dirigo check` replays a bug's witness on the GPU too
# (check_run.c check_replay_gpu, through gpu_run): on a GPU machine the bug
# line says what the GPU computed and the JSON has "gpu": {"result":
# "reproduces"}; without a GPU neither appears. Needs $DIRIGO (Z3 inside).
#   DIRIGO=.devcarry/bin/dirigo DG_SRCDIR=. sh t/gpu/check-replay.sh
src=${DG_SRCDIR:-.}
n=0; bad=0
t() { n=$((n+1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; bad=1; fi; }
W=$(mktemp -d "${TMPDIR:-/tmp}/dg_chk.XXXXXX")
trap 'rm -rf "$W"' EXIT
cp "$src/samples/softmax/softmax_warp_regs_padzero.lua" "$src/samples/softmax/softmax_warp_regs_padzero.cu" "$W/"
gpu=no
{ [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; } && gpu=yes
out=$("$DIRIGO" check "$W/softmax_warp_regs_padzero.lua" --at 0,0 --timeout 30 --no-journal 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
[ $rc = 1 ]; t $? "a buggy kernel checks as a bug (rc $rc)"
echo "$out" | grep -Eq 'bug +kernel .*witness replayed on the emulator'; t $? "the witness replayed on the emulator"
json=$("$DIRIGO" check "$W/softmax_warp_regs_padzero.lua" --at 0,0 --timeout 30 --no-journal --json 2>&1)
echo "$json" | grep -o '"gpu":{[^}]*}' | sed 's/^/# /'
if [ $gpu = yes ]; then
  echo "$out" | grep -Eq 'on the GPU \(.*\): kernel [-0-9.e]+, reproduces'; t $? "and on the GPU, where it reproduces"
  echo "$json" | grep -q '"gpu":{"result":"reproduces","kernel_value":'; t $? "the JSON says so"
  ok=$("$DIRIGO" check "$src/samples/softmax/softmax_warp.lua" --at 3,36 --timeout 30 --no-journal --json 2>&1)
  echo "$ok" | grep -q '"gpu"'; [ $? = 1 ]; t $? "no GPU replay for an equivalent element"
else
  echo "$out" | grep -q 'on the GPU'; [ $? = 1 ]; t $? "no GPU here: nothing said about one"
  echo "$json" | grep -q '"gpu"'; [ $? = 1 ]; t $? "and no gpu key in the JSON"
fi
echo "1..$n"
exit $bad
