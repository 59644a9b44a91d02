#!/bin/sh
# The problems under a folder, as `dirigo sweep` and `dirigo fuzz --evaluate`
# both find them (cli_find_specs): *.lua outside scripts/, and .cu files that
# open with a dirigo: block; a plain .cu and a script are not problems.
. "${DG_SRCDIR:-.}/t/cli/lib.sh"
S=$DG_SRCDIR/samples
W=$(mktemp -d "${TMPDIR:-/tmp}/dg_specs.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/p/sub/scripts"
cp "$S/elementwise/leaky_relu_macro.lua" "$S/elementwise/leaky_relu_macro.cu" "$W/p/"
cp "$S/elementwise/relu_gridstride.cu" "$W/p/sub/"
cp "$DG_SRCDIR/t/data/specs/block.cu" "$W/p/sub/"   # a // comment before its block
printf '__global__ void k(float *y) { }\n' > "$W/p/plain.cu"
printf 'print("a script, not a problem")\n' > "$W/p/sub/scripts/helper.lua"
want="$W/p/leaky_relu_macro.lua $W/p/sub/block.cu $W/p/sub/relu_gridstride.cu"

out=$("$DIRIGO" fuzz --evaluate "$W/p" --cases 2 --seed 1)
got=$(printf '%s\n' "$out" | sed -n 's/^  \([^ ]*\) .*/\1/p' | grep -v '^strategy' | tr '\n' ' ' | sed 's/ $//')
is "$got" "$want" "fuzz --evaluate: the .lua spec and the .cu with a dirigo: block, sorted"
like "$out" "^0 buggy and 3 correct problems" "three problems evaluated"
# the table's columns line up under the header, the longest strategy name included
hdr=$(printf '%s\n' "$out" | grep '^strategy ' | awk '{ print index($0, "recall") }')
row=$(printf '%s\n' "$out" | grep '^boundary+adversarial+huge ' | awk '{ print index($0, "%") }')
is "$row" "$((hdr + 5))" "--evaluate: the recall column of boundary+adversarial+huge ends under 'recall'"

"$DIRIGO" sweep "$W/p" --mode fuzz --budget 5 --jobs 1 --fresh --out "$W/sweep.jsonl" > /dev/null 2>&1
got=$(sed -n 's/^{"problem":"\([^"]*\)".*/\1/p' "$W/sweep.jsonl" | sort -u | tr '\n' ' ' | sed 's/ $//')
is "$got" "leaky_relu_macro.lua sub/block.cu sub/relu_gridstride.cu" "sweep finds the same three problems"

mkdir -p "$W/empty/scripts"
cp "$W/p/plain.cu" "$W/empty/"
cp "$W/p/sub/scripts/helper.lua" "$W/empty/scripts/"
out=$(run_dirigo fuzz --evaluate "$W/empty" 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "no problems: a usage error (exit 2)"
like "$out" "no problem specs \(\*\.lua, \.cu with a dirigo: block\) under" "that says what counts as a problem"

# the .lua's 'return problem { … }' pasted into a .cu's block: say so, at its line
printf '/* dirigo:\nreturn problem { op = "relu", sizes = { N = 4 }, launch = "k<<<1, 4>>>(y, x, N)" }\n*/\n__global__ void k(float *y, const float *x, int N) { y[threadIdx.x] = x[threadIdx.x]; }\n' > "$W/ret.cu"
out=$(run_dirigo check "$W/ret.cu" --at 0 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "a block with 'return problem {…}': an input error (exit 2)"
like "$out" "ret.cu:2:1: error: the /\* dirigo: … \*/ block holds the fields only" "that says the block holds the fields only, at 2:1"

# a preprocessor error in the kernel named by a spec: the kernel's file:line:col is in the message
cp "$S/elementwise/leaky_relu_macro.lua" "$W/"
printf '// x\n#include <=cuda_runtime.h>\n' > "$W/leaky_relu_macro.cu"
out=$(run_dirigo fuzz "$W/leaky_relu_macro.lua" --cases 1 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "a preprocessor error in the kernel: an input error (exit 2)"
like "$out" "leaky_relu_macro.cu:2:10: #include expects" "names the kernel's file:line:col, not only the spec's"

# dynamic shared memory past what the emulator can allocate: an error at the launch, not an abort
printf 'return problem { source = "k.cu", op = "relu", sizes = { N = 4 }, launch = "k<<<1, 4, 99999999999>>>(y, x, N)" }\n' > "$W/shm.lua"
printf '__global__ void k(float *y, const float *x, int N) { y[threadIdx.x] = x[threadIdx.x] > 0 ? x[threadIdx.x] : 0; }\n' > "$W/k.cu"
out=$(run_dirigo check "$W/shm.lua" --at 0 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "99999999999 bytes of dynamic shared memory: an input error (exit 2), not an abort"
like "$out" "shm.lua:1:[0-9]+: error: launch of k: dynamic shared memory is 99999999999 bytes" "at the launch's position"

# template = … on a plain kernel: a warning at the launch, no position-less "error:" before a verdict
cp "$S/elementwise/leaky_relu_macro.lua" "$S/elementwise/leaky_relu_macro.cu" "$W/"
sed 's/^  op *= "leaky_relu",/  op = "leaky_relu", template = { 5 },/' "$S/elementwise/leaky_relu_macro.lua" > "$W/tmpl.lua"
out=$(run_dirigo check "$W/tmpl.lua" --at 3 --no-journal 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 0 "template on a plain kernel: checked (exit 0)"
like "$out" "tmpl.lua:[0-9]+:[0-9]+: warning: template arguments ignored: 'leaky_relu_kernel' is not a template" "a warning at the launch"
ok "! printf '%s\n' \"\$out\" | grep -q '^error:'" "no error line without a position"

# a launch with the wrong number of arguments: a spec error at the launch
sed 's/(y, x, N)"/(y, x)"/' "$S/elementwise/leaky_relu_macro.lua" > "$W/nargs.lua"
out=$(run_dirigo fuzz "$W/nargs.lua" --cases 1 2>&1)
is "$(cat "${TMPDIR:-/tmp}/dg_rc.$$")" 2 "a launch with 2 of 3 arguments: an input error (exit 2)"
like "$out" "nargs.lua:[0-9]+:[0-9]+: error: launch 1: leaky_relu_kernel takes 3 arguments, the launch gives 2" "at the launch, with both counts"

# a reference that never returns: stopped, not a hang (under timeout so a regression fails)
cat > "$W/refloop.lua" <<'LUA'
return problem {
  source = "leaky_relu_macro.cu", attrs = { negative_slope = 0.01 }, defines = { NEG_SLOPE = "0.01f" },
  sizes = { N = 777 }, launch = "leaky_relu_kernel<<<min((N + 255) / 256, 2), 256>>>(y, x, N)",
  op = op "lr" { inputs = { x = {"N"} }, outputs = { y = {"N"} }, sizes = { N = {1, 2} },
                 ref = function(T, i) while true do end end },
}
LUA
out=$(timeout 120 "$DIRIGO" check "$W/refloop.lua" --at 3 --no-journal 2>&1); rc=$?
is "$rc" 0 "check with an endless reference ends (unknown, exit 0)"
like "$out" "refloop.lua:5: the reference runs too long \\(an endless loop\\?\\)" "naming the reference's line"
out=$(timeout 120 "$DIRIGO" fuzz "$W/refloop.lua" --cases 1 2>&1); rc=$?
is "$rc" 3 "fuzz with an endless reference ends: the case is an error (exit 3)"

# a shape function that never returns: a load error, not a hang
sed 's/inputs = { x = {"N"} }/inputs = { x = function(a) while true do end end }/' "$W/refloop.lua" > "$W/shapeloop.lua"
out=$(timeout 120 "$DIRIGO" check "$W/shapeloop.lua" --at 3 --no-journal 2>&1); rc=$?
is "$rc" 2 "an endless shape function: an input error (exit 2), not a hang"
like "$out" "shapeloop.lua:4:[0-9]+: error: .*the shape function runs too long" "at its line"

# a reference that raises: the verdict stays on one line (no Lua traceback inside it)
sed 's/ref = function(T, i) while true do end end/ref = function(T, i) error("refboom") end/' "$W/refloop.lua" > "$W/referr.lua"
out=$(run_dirigo check "$W/referr.lua" --at 3 --no-journal 2>&1)
like "$out" "^y\\[3\\] +unknown +the reference could not run symbolically: .*referr.lua:5: refboom +\\([0-9.]+ s\\)$" "the reason on the verdict's line"
is "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 1 "one line, no traceback"
# and a fuzz case whose reference raises: one line a case, no traceback
out=$("$DIRIGO" fuzz "$W/referr.lua" --cases 2 2>&1)
like "$out" "error +reference of 'y': .*referr.lua:5: refboom \\([0-9.]+ s\\)" "fuzz: the reference's error on the case's line"
ok "! printf '%s\\n' \"\$out\" | grep -q 'stack traceback'" "fuzz: no traceback between the case lines"
# errors beside passes: not "all checked and fine" (exit 3, not 0)
sed 's/ref = function(T, i) error("refboom") end/ref = function(T, i) if T.x[i] > 2.5 then error("refboom") end local v = T.x[i] if v > 0 then return v end return 0.01 * v end/' \
  "$W/referr.lua" > "$W/refsome.lua"
out=$("$DIRIGO" fuzz "$W/refsome.lua" --strategy regular --cases 8 2>&1); rc=$?
like "$out" "8 cases: [1-9] pass, 0 fail, 0 findings, [1-9] errors" "a campaign with passes and errors"
is "$rc" 3 "exits 3: a case that was not judged is not a pass"

# an index range with lo above hi holds no value to draw: a spec error at the range, not a silent draw
cp "$DG_SRCDIR/samples/embedding/embedding_gather.cu" "$W/"
sed 's/ids = { 0, "V-1" }/ids = { "V", 1 }/' "$DG_SRCDIR/samples/embedding/embedding_gather.lua" > "$W/range_empty.lua"
out=$("$DIRIGO" fuzz "$W/range_empty.lua" --cases 2 2>&1); rc=$?
is "$rc" 2 "an empty range: exit 2"
like "$out" "range_empty.lua:5:[0-9]+: error: range of ids is empty: \\{V, 1\\} is \\{11, 1\\} at V = 11" \
  "names the range, its values and the sizes, at file:line:col"

# the sandbox's withheld names say so at the name, not "attempt to index a nil value"
sed 's|^return problem {|local t0 = os.time()\nreturn problem {|' "$DG_SRCDIR/samples/embedding/embedding_gather.lua" > "$W/uses_os.lua"
out=$("$DIRIGO" fuzz "$W/uses_os.lua" --cases 2 2>&1); rc=$?
is "$rc" 2 "a spec reading os: exit 2"
like "$out" "uses_os.lua:[0-9]+:12: error: 'os' is not available: specs and op files run in a sandbox without os, io" \
  "names os and the sandbox at file:line:col"
printf 'local ratio = 1\nreturn { name = "t", x = ratio + io.read() }\n' > "$W/uses_io.lua"
like "$("$DIRIGO" fuzz "$W/uses_io.lua" 2>&1)" "uses_io.lua:2:34: error: 'io' is not available" \
  "the column of the whole word io (not inside another name)"

# an unusable problem in --evaluate names its first error at file:line:col
mkdir -p "$W/ev"
cp "$S/elementwise/leaky_relu_macro.lua" "$S/elementwise/leaky_relu_macro.cu" "$W/ev/"
printf '__global__ void k(float *y) { y[0] = 1 }\n' > "$W/ev/bad.cu"
sed 's/leaky_relu_macro.cu/bad.cu/' "$S/elementwise/leaky_relu_macro.lua" > "$W/ev/badk.lua"
out=$("$DIRIGO" fuzz --evaluate "$W/ev" --cases 2 --seed 1 2>&1)
like "$out" "badk.lua +unusable: .*/ev/bad.cu:1:41: error: syntax error: missing ';'" \
  "--evaluate: an unusable problem's row gives its first error at file:line:col"
like "$out" "^0 buggy and 1 correct problems; 1 unusable" "and it is counted unusable"
# a kernel given where its spec was meant: the spec beside it is named
out=$("$DIRIGO" check "$W/ev/leaky_relu_macro.cu" --at 0 2>&1); rc=$?
is "$rc" 2 "check FILE.cu without a dirigo block: exit 2"
like "$out" "leaky_relu_macro.cu:1:1: error: no /\\* dirigo: … \\*/ block in this file; its spec is .*/ev/leaky_relu_macro.lua" \
  "names the spec beside it"
# a launch argument of the wrong kind for its parameter is a spec error at the argument
cp "$S/elementwise/leaky_relu_macro.cu" "$W/ev/lk.cu"
sed 's/leaky_relu_macro.cu/lk.cu/; s/(y, x, N)/(y, N, N)/' "$S/elementwise/leaky_relu_macro.lua" > "$W/ev/int_for_ptr.lua"
out=$("$DIRIGO" check "$W/ev/int_for_ptr.lua" --at 0 2>&1); rc=$?
is "$rc" 2 "an integer where the kernel takes a pointer: exit 2"
like "$out" "int_for_ptr.lua:[0-9]+:[0-9]+: error: launch 1: argument 2 'N' is a number, but parameter 'x' of [a-z_]+ is a pointer" \
  "names the argument and the parameter at file:line:col (it ran as a null pointer)"
sed 's/leaky_relu_macro.cu/lk.cu/; s/(y, x, N)/(y, x, x)/' "$S/elementwise/leaky_relu_macro.lua" > "$W/ev/ptr_for_int.lua"
out=$("$DIRIGO" fuzz "$W/ev/ptr_for_int.lua" 2>&1); rc=$?
is "$rc" 2 "a tensor where the kernel takes an int: exit 2"
like "$out" "ptr_for_int.lua:[0-9]+:[0-9]+: error: launch 1: argument 3 'x' is a tensor, but parameter 'N' of [a-z_]+ is not a pointer" \
  "names both (it was a position-less error for every case)"
# a template that makes the kernel's element type another size than the tensor's
cp "$S/elementwise/elu_template.cu" "$W/ev/elu.cu"
sed 's/elu_template.cu/elu.cu/; s/elu_kernel<float>/elu_kernel<double>/' "$S/elementwise/elu_template.lua" > "$W/ev/elu_double.lua"
out=$("$DIRIGO" check "$W/ev/elu_double.lua" --at 0 2>&1); rc=$?
is "$rc" 2 "elu_kernel<double> on f32 tensors: exit 2"
like "$out" "elu_double.lua:[0-9]+:[0-9]+: error: launch 1: argument 1 'y' is an f32 tensor \\(4 bytes an element\\), but parameter 'y' of elu_kernel<double> points to double \\(8 bytes\\)" \
  "names the tensor's dtype and the parameter's type (it was an out-of-bounds store)"
# a template instance the kernel's template refuses: the reason at the launch, file:line:col
sed 's/elu_template.cu/elu.cu/; s/elu_kernel<float>/elu_kernel<float, 3>/' "$S/elementwise/elu_template.lua" > "$W/ev/elu_targs.lua"
out=$("$DIRIGO" check "$W/ev/elu_targs.lua" --at 0 2>&1)
like "$out" "elu_targs.lua:[0-9]+:[0-9]+: error: too many template arguments in 'elu_kernel<float, 3>'" \
  "the template's refusal names the spec's launch (it had no position)"
# a float literal for an integer kernel parameter runs truncated: the spec is told so
sed 's/leaky_relu_macro.cu/lk.cu/; s/(y, x, N)/(y, x, 2.5)/' "$S/elementwise/leaky_relu_macro.lua" > "$W/ev/float_for_int.lua"
out=$("$DIRIGO" check "$W/ev/float_for_int.lua" --at 0 --no-journal 2>&1)
like "$out" "float_for_int.lua:[0-9]+:[0-9]+: warning: launch 1: argument 3 '2.5' is a float for the integer parameter 'N' of [a-z_]+: it runs as 2" \
  "a float for an int parameter is a warning at the argument"
done_testing
