-- dirigo.check from scripts (run by t/lua_api/check.sh through `dirigo run`): the
-- verdict, the evidence and, on request, the writer thread's steps. TAP output.
local dir = arg[1]
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

local p = assert(dirigo.load(dir .. "/rows.lua"))
local r = dirigo.check(p, "y", 1, { steps = true })
is(r.verdict, "equivalent", "y[1] is equivalent to the row sum")
is(r.element, "y[1]", "the element")
is(r.finding, false, "not a finding")
is(r.kernel_term, "x[3] + x[4] + x[5]", "the kernel's term")
is(r.reference_term, "x[3] + x[4] + x[5]", "the reference's term")
is(r.writer.launch .. " " .. r.writer.block .. " " .. r.writer.thread, "1 0 1", "the writer (launch 1-based)")
is(#r.slice, 5, "the slice: five lines")
is(r.slice[1].line, 3, "starting at the thread's index")
is(#r.steps, 17, "17 steps: each iteration's test, body and update, the if's and the last test's decisions")
is(r.steps_more, 0, "none past the cap")
local s = r.steps[1]
is(s.line .. ":" .. s.col .. " " .. s.source .. " -> " .. s.target .. " = " .. s.value,
   "3:7 int n = blockIdx.x * blockDim.x + threadIdx.x; -> n = 1", "step 1: the row index")
ok(s.file:match("rows%.cu$"), "steps name the kernel file", s.file)
is(r.steps[2].target, nil, "the if sets nothing")
is(r.steps[3].what .. " " .. r.steps[3].source .. " -> " .. r.steps[3].value, "condition n >= N -> false: not taken",
   "step 3: the if's decision")
is(r.steps[9].what .. " " .. r.steps[9].target .. " = " .. r.steps[9].value, "update c = 1", "step 9: the loop's update")
is(r.steps[11].value, "x[3] + x[4]", "the second iteration's sum")
is(r.steps[17].target .. " = " .. r.steps[17].value, "y[1] = x[3] + x[4] + x[5]", "the store")
is(r.steps[17].depth .. " " .. r.steps[17].what, "1 statement", "in the kernel's body, a statement")

local r2 = dirigo.check(p, "y", {0})
is(r2.verdict, "equivalent", "an index as a list")
is(r2.steps, nil, "no steps unless asked")
is(r2.smtlib, nil, "no SMT-LIB unless asked")
ok((dirigo.check(p, "y", 0, { smtlib = true }).smtlib or ""):match("declare%-fun"), "smtlib = true keeps the query")

is(dirigo.check(p, "y", 5).verdict, "error", "an index outside y: verdict error")
local okc, err = pcall(dirigo.check, p, "y", 1, { bogus = 1 })
ok(not okc and err:match("unknown option 'bogus'"), "an unknown option is an error", err)
okc, err = pcall(dirigo.check, p, "x", 1)
ok(not okc and err:match("not an output"), "an input is refused", err)
okc, err = pcall(dirigo.check, p, "y", {1, 2})
ok(not okc and err:match("one index per dimension"), "the index's rank is checked", err)
for _, bad in ipairs { { timeout = 0 / 0 }, { timeout = -1 }, { seed = -1 }, { seed = 1.5 } } do
  local k = next(bad)
  okc, err = pcall(dirigo.check, p, "y", 1, bad)
  ok(not okc and err:match("dirigo.check: opts%." .. k .. " must be"), "opts." .. k .. " = " .. tostring(bad[k]) .. " is refused", err)
end
okc, err = pcall(dirigo.check, p, "y", 1, { float = "double" })
ok(not okc and err:match('float is "real" or "ieee"'), "float is real or ieee", err)

local bad = assert(dirigo.load(dir .. "/bug.lua"))
local rb = dirigo.check(bad, "y", 1, { steps = true, timeout = 20 })
is(rb.verdict, "bug", "a kernel that drops the last column: bug")
ok(rb.finding and rb.kernel_value and rb.reference_value and rb.kernel_value ~= rb.reference_value,
   "with both replayed numbers")
is(rb.steps[#rb.steps].value, "x[3] + x[4]", "its steps show the short sum")
print("1.." .. n)
os.exit(failed == 0 and 0 or 1)
