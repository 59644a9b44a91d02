-- t/lua_strategy/fuzz_module.lua — dirigo.fuzz, dirigo.replay, dirigo.strategies
-- from a script. Run by module.sh: dirigo run fuzz_module.lua SRCDIR. Prints TAP.
local src = arg[1] or "."
local n, failed = 0, false
local function ok(c, name)
  n = n + 1
  if not c then failed = true end
  print((c and "ok " or "not ok ") .. n .. " - " .. name)
end
local function is(got, want, name)
  ok(got == want, name)
  if got ~= want then print(("#   got %s, want %s"):format(tostring(got), tostring(want))) end
end

local bug = assert(dirigo.load(src .. "/samples/softmax/softmax_warp_regs_padzero.lua"))
local good = assert(dirigo.load(src .. "/samples/softmax/softmax_warp.lua"))

local by = {}
for _, s in ipairs(dirigo.strategies()) do by[s.name] = s end
ok(by.boundary and by.boundary.builtin and not by.boundary.file, "strategies: boundary is built in")
ok(by["tail-sweep"] and not by["tail-sweep"].builtin and by["tail-sweep"].file:match("tail_sweep%.lua$"),
   "strategies: tail-sweep comes from lua/strategies/tail_sweep.lua")
ok(by.primes and #by.primes.help > 10, "strategies: primes with its help")

local r = dirigo.fuzz(bug, { strategy = "tail-sweep", cases = 10 })
ok(r.failed, "fuzz: tail-sweep finds the bug")
is(r.strategy, "tail-sweep", "fuzz: result names the strategy")
is(r.cases, r.pass + r.fail + r.findings + r.errors + r.skipped, "fuzz: counts add up")
is(r.first and r.first.status, "fail", "fuzz: first failure status")
ok(r.first and r.first.message:match("mismatch"), "fuzz: first failure message")
is(r.first and r.first.output, "y", "fuzz: failing output")
is(r.first and #r.first.index, 2, "fuzz: failing element index")
ok(r.witness and r.witness:match("^fuzz:tail%-sweep:1:%d+$"), "fuzz: witness " .. tostring(r.witness))
ok(r.shrunk_witness and r.shrunk_witness:match("^fuzz:tail%-sweep:1:%d+@N=%d+,C=%d+$"),
   "fuzz: shrunk witness " .. tostring(r.shrunk_witness))
ok(type(r.seconds) == "number" and r.seconds >= 0 and r.first.seconds <= r.seconds, "fuzz: seconds")

local o = assert(dirigo.replay(bug, r.shrunk_witness))
is(o.status, "fail", "replay: the shrunk witness still fails")
is(o.digest, r.shrunk.digest, "replay: same inputs as the campaign's case")
is(o.strategy, "tail-sweep", "replay: strategy")
local o2 = assert(dirigo.replay(good, r.shrunk_witness))
is(o2.status, "pass", "replay: the same case passes on the correct kernel")

local g = dirigo.fuzz(good, { strategy = "primes", cases = 5, seed = 7 })
ok(not g.failed and g.pass == 5 and g.cases == 5 and g.first == nil, "fuzz: primes passes a correct kernel")

local a = dirigo.fuzz(bug, { strategy = "primes", seed = 3, shrink = false })
local b = dirigo.fuzz(bug, { strategy = "primes", seed = 3, shrink = false })
ok(a.failed and a.witness == b.witness and a.first.digest == b.first.digest, "fuzz: a seed replays the campaign")
ok(a.shrunk == nil and a.shrunk_witness == nil, "fuzz: shrink = false does not shrink")
local c = dirigo.fuzz(bug, { strategy = "primes", seed = 4, cases = 40, keep_going = true, shrink = false })
is(c.cases, 40, "fuzz: keep_going runs every case")

local seen = {}
local oc = dirigo.fuzz(good, { strategy = "tail-sweep", cases = 4, on_case = function(o) seen[#seen + 1] = o end })
ok(#seen == 4 and seen[3].case == 2 and seen[3].status == "pass" and seen[3].shape:match("C=%d+ max%-last"),
   "fuzz: on_case sees every case")
local okk, err = pcall(dirigo.fuzz, good, { cases = 3, on_case = function(o) error("stop at " .. o.case) end })
ok(not okk and err:match("stop at 0$"), "fuzz: an error in on_case is raised after the campaign (" .. tostring(err) .. ")")
local closed
dirigo.fuzz(good, { cases = 1, on_case = function() closed = { pcall(good.close, good) } end })
ok(closed and not closed[1] and closed[2]:match("in use by dirigo.fuzz") and good.op == "softmax",
   "fuzz: a problem cannot be closed by its own campaign's callbacks")
local none, msg = dirigo.replay(good, "fuzz:nope:1:0")
ok(none == nil and msg:match("unknown strategy 'nope'"), "replay: unknown strategy in a witness")
none, msg = dirigo.replay(good, "boundary:1:0")
ok(none == nil and msg:match("not a fuzz witness"), "replay: not a witness")
none, msg = dirigo.replay(good, "fuzz:boundary:1:0@N=100000,C=100000")
ok(none == nil and msg:match("elements, over 8192"), "replay: sizes past the cap are refused, not run")
none, msg = dirigo.replay(good, "fuzz:boundary:1:0@N=100,C=100", { max_elems = 5000 })
ok(none == nil and msg:match("elements, over 5000"), "replay: opts.max_elems sets the cap")
local o3 = dirigo.replay(good, "fuzz:boundary:1:0@N=100,C=100", { max_elems = 20000 })
ok(o3 and o3.status == "pass", "replay: within opts.max_elems it runs")
okk, err = pcall(dirigo.fuzz, good, { strategy = "nope" })
ok(not okk and err:match("unknown strategy 'nope' %(strategies: regular, .*tail%-sweep"), "fuzz: unknown strategy lists them")
okk, err = pcall(dirigo.fuzz, good, { case = 3 })
ok(not okk and err:match("unknown option 'case'"), "fuzz: unknown option")
okk, err = pcall(dirigo.fuzz, good, { cases = 0 })
ok(not okk and err:match("opts.cases must be an integer >= 1"), "fuzz: bad cases")

local names = {}
for _, d in ipairs(dirigo.dists()) do names[d.name] = d.help end
ok(names["max-last"] and names.negative, "dists: the value distributions with help")

-- strategies defined by the script itself
local calls = 0
dirigo.strategy("ones", {
  help = "every size 1, negative values",
  gen = function(space, k, rng)
    calls = calls + 1                               -- runs in the script's own state
    local s = {}
    for _, z in ipairs(space.sizes) do s[z.name] = 1 end
    return { sizes = s, values = "negative" }
  end,
})
local o1 = dirigo.fuzz(bug, { strategy = "ones", cases = 3 })
ok(o1.failed and o1.first.shape == "N=1 C=1 negative" and calls == 1, "strategy: a script's strategy runs in its campaigns")
is(o1.witness, "fuzz:ones:1:0", "strategy: its witness")
local rp = dirigo.replay(bug, o1.witness)
ok(rp and rp.status == "fail" and rp.digest == o1.first.digest and calls == 2, "strategy: and replays in the script")
local listed
for _, s in ipairs(dirigo.strategies()) do if s.name == "ones" then listed = s end end
ok(listed and not listed.builtin and listed.file:match("fuzz_module%.lua$") and listed.help:match("every size"),
   "strategy: listed with the script as its file")
dirigo.strategy("ones", { help = "replaced", gen = function(space, k, rng) error("on purpose") end })
local e1 = dirigo.fuzz(good, { strategy = "ones", cases = 2 })
is(e1.errors, 2, "strategy: defining it again replaces gen; errors are counted")
local line = debug.getinfo(1, "l").currentline - 3
ok(e1.errors == 2 and not e1.failed, "strategy: an erroring gen is not a kernel failure")
dirigo.strategy("bad-dist", { help = "x", gen = function() return { values = "gauss" } end })
local bd = dirigo.replay(good, "fuzz:bad-dist:1:0")
ok(bd == nil, "strategy: a bad case refuses the replay")
local _, m2 = dirigo.replay(good, "fuzz:ones:1:0")
ok(m2 and m2:match("fuzz_module%.lua:" .. line .. ": on purpose"), "strategy: gen's error names script:line (" .. tostring(m2) .. ")")
okk, err = pcall(dirigo.strategy, "boundary", { help = "x", gen = function() end })
ok(not okk and err:match("strategy 'boundary' exists %(built in%)"), "strategy: built-in names are taken")
okk, err = pcall(dirigo.strategy, "a:b", { help = "x", gen = function() end })
ok(not okk and err:match("goes into witnesses"), "strategy: names that break witnesses are refused")
okk, err = pcall(dirigo.strategy, "nogen", { help = "x" })
ok(not okk and err:match("gen must be a function"), "strategy: gen is required")
local co = coroutine.wrap(function()
  return dirigo.fuzz(bug, { strategy = "ones", cases = 1 }).errors
end)
is(co(), 1, "strategy: campaigns inside a coroutine call gen on the running thread")

good:close()
okk, err = pcall(dirigo.fuzz, good)
ok(not okk and err:match("closed"), "fuzz: a closed problem is refused")
print("1.." .. n)
return failed and 1 or 0
