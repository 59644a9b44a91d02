-- The dirigo module as scripts see it (run by api.sh through `dirigo run`). TAP output.
local root = arg[1]
local n, failed = 0, 0
local function ok(c, name, diag)
  n = n + 1
  print((c and "ok " or "not ok ") .. n .. " - " .. name)
  if not c then
    failed = failed + 1
    if diag then print("# " .. tostring(diag):gsub("\n", "\n# ")) end
  end
end
local function is(got, want, name) ok(got == want, name, ("got %s, want %s"):format(tostring(got), tostring(want))) end

-- ops
local ops = dirigo.ops()
local seen = {}
for _, o in ipairs(ops) do seen[o] = true end
ok(seen.softmax and seen.matmul and #ops >= 30, "dirigo.ops() lists the op library")
local sorted = true
for i = 2, #ops do sorted = sorted and ops[i - 1] < ops[i] end
ok(sorted, "ops sorted")
ok((dirigo.op_path("softmax") or ""):match("lua/ops/softmax%.lua$"), "op_path")
is(dirigo.op_path("../etc/passwd"), nil, "op_path refuses paths")
ok(type(dirigo.version) == "string", "version")

-- a problem
local p = assert(dirigo.load(root .. "/samples/softmax/softmax_warp.lua"))
is(p.op, "softmax", "problem.op")
is(p.sizes.C, 77, "problem.sizes")
ok(p.source:match("softmax_warp%.cu$"), "source resolved next to the spec")
local t = p.tensors
is(t[1].name .. ":" .. t[1].role, "x:input", "first tensor is the input")
is(t[2].name .. ":" .. t[2].role, "y:output", "then the output")
is(table.concat(t[1].shape, "x"), "7x77", "shape at the spec's sizes")
is(table.concat(t[1].shape_expr, ","), "N,C", "shape as written")
is(t[1].dtype, "f32", "default dtype")
local l = p.launches[1]
is(l.kernel, "softmax_warp", "launch kernel")
is(l.grid[1] .. "," .. l.block[1], "2,128", "grid/block evaluated")
is(l.args[1].kind .. " " .. l.args[3].kind .. " " .. l.args[3].value, "tensor expr 7", "argument kinds")
is(table.concat(p:shape("y", { N = 3, C = 5 }), "x"), "3x5", "shape at other sizes")

-- reference: given inputs, and random ones by seed
local v = dirigo.ref(p, "y", { 0, 1 }, { sizes = { N = 1, C = 2 }, inputs = { x = { 0, 0 } } })
ok(math.abs(v - 0.5) < 1e-15, "softmax of equal values is 1/C", v)
local v2 = dirigo.ref(p, "y", { 0, 1 }, { sizes = { N = 1, C = 2 }, inputs = { x = { 1, 3 } } })
ok(math.abs(v2 - 1 / (1 + math.exp(-2))) < 1e-15, "softmax of {1, 3}", v2)
local a, b = dirigo.ref(p, "y", { 2, 3 }, { seed = 7 }), dirigo.ref(p, "y", { 2, 3 }, { seed = 7 })
ok(a == b and a > 0 and a < 1, "random inputs replay by seed")
local okr, err = pcall(dirigo.ref, p, "y", { 7, 0 })
ok(not okr and tostring(err):match("out of range"), "index out of range is an error", err)
okr, err = pcall(dirigo.ref, p, "x", { 0, 0 })
ok(not okr and tostring(err):match("not an output"), "inputs have no reference", err)
-- a size name the problem does not have, or a fractional index or size, is an error naming it
okr, err = pcall(dirigo.ref, p, "y", { 0, 1 }, { sizes = { n = 1, C = 2 } })
ok(not okr and tostring(err):match("no size 'n' %(its sizes: N, C%)"), "a misspelt size is refused, not ignored", err)
okr, err = pcall(p.shape, p, "y", { N = 2.5 })
ok(not okr and tostring(err):match("size 'N' must be an integer"), "a fractional size names the size", err)
okr, err = pcall(dirigo.ref, p, "y", { 0.5, 1 })
ok(not okr and tostring(err):match("bad argument #3 to 'dirigo.ref' %(index 1 must be an integer%)"), "a fractional index names its position", err)
-- given inputs of the wrong length or kind are refused, not padded with zeros or replaced
okr, err = pcall(dirigo.ref, p, "y", { 0, 1 }, { sizes = { N = 1, C = 2 }, inputs = { x = { 1 } } })
ok(not okr and tostring(err):match("inputs%.x has 1 values?, the tensor 2"), "a short input list is an error", err)
okr, err = pcall(dirigo.ref, p, "y", { 0, 1 }, { sizes = { N = 1, C = 2 }, inputs = { x = { 1, "a" } } })
ok(not okr and tostring(err):match("inputs%.x%[2%] is not a number"), "a non-number among the inputs is an error", err)
okr, err = pcall(dirigo.ref, p, "y", { 0, 1 }, { sizes = { N = 1, C = 2 }, inputs = { x = "1,3" } })
ok(not okr and tostring(err):match("inputs%.x must be a list of numbers"), "inputs of another kind are an error", err)

-- constraints
local q = assert(dirigo.load(root .. "/samples/attention/attention_online.lua"))
is(q:check_sizes({ D = 64 }), true, "sizes inside the constraints")
local good, msg = q:check_sizes({ D = 65 })
ok(not good and msg:match("attention_online%.lua:5:%d+: error: sizes break the kernel's constraint 'D <= 64'"), "constraint named", msg)
q:close()
okr, err = pcall(function() return q.op end)
ok(not okr and tostring(err):match("closed"), "a closed problem is an invalid handle", err)

-- to-be-closed variables
do
  local r <close> = assert(dirigo.load(root .. "/samples/elementwise/relu_gridstride.cu"))
  is(r.op, "relu", ".cu with a dirigo block")
end

-- errors in a spec
local none, diag = dirigo.load(root .. "/t/data/specs/bad_launch_arg.lua")
ok(none == nil and diag:match("bad_launch_arg%.lua:5:29: error: unknown name 'z'"), "load error names file:line:col", diag)

-- the front end's view of a kernel file
local m = dirigo.parse(root .. "/samples/softmax/softmax_warp.cu")
local k
for _, f in ipairs(m.functions or {}) do if f.name == "softmax_warp" then k = f end end
ok(k and k.kernel and #k.params == 4 and k.params[1].name == "y", "dirigo.parse lists the kernel and its parameters",
   m.diagnostics and table.concat(m.diagnostics, "\n"))
is(m.errors, 0, "no front-end errors")
local bad = dirigo.parse("/nonexistent/k.cu")
ok(bad.errors > 0 and #bad.diagnostics > 0, "dirigo.parse of a missing file reports it")

print("1.." .. n)
return failed == 0 and 0 or 1
