-- fuzz_session.lua — a scripted exploratory fuzz session:
--   dirigo run samples/scripts/fuzz_session.lua [SPEC] [STRATEGY...]
-- loads a sample (default: the softmax whose register padding is 0 instead of
-- -inf), fuzzes it with two strategies (default: the built-in boundary and the
-- Lua tail-sweep), prints one table row per strategy, then replays the
-- first strategy's smallest failing case to confirm it. Exits 1 when a bug was found.
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local spec = arg[1] or here .. "/../softmax/softmax_warp_regs_padzero.lua"
local strategies = { select(2, ...) }
if #strategies == 0 then strategies = { "boundary", "tail-sweep" } end

local p = assert(dirigo.load(spec))
print(("problem %s (op %s, seeded bug: %s)"):format(p.path, p.op, p.seeded_bug or "none"))

local known = {}
for _, s in ipairs(dirigo.strategies()) do known[s.name] = s end
local fmt = "%-22s %-8s %5s %5s %5s  %-20s %9s  %s"
print(fmt:format("strategy", "kind", "cases", "pass", "fail", "first failure", "t-first", "shrunk witness"))
local best
for _, name in ipairs(strategies) do
  local s = assert(known[name], "no strategy " .. name)
  local r = dirigo.fuzz(p, { strategy = name, cases = 24, seed = 1 })
  local first = r.first and r.first.shape or "-"
  local t = r.first and ("%.3f s"):format(r.first.seconds) or "-"
  print(fmt:format(name, s.builtin and "built-in" or "lua", r.cases, r.pass, r.fail + r.findings,
                   first, t, r.shrunk_witness or r.witness or "-"))
  local w = r.shrunk_witness or r.witness
  if w and not best then best = w end       -- the first strategy's smallest failing case
end

if best then
  local o = assert(dirigo.replay(p, best))
  print(("replay %s: %s at %s: %s"):format(best, o.status, o.shape, o.message))
  return o.status == "pass" and 0 or 1
end
print("no strategy found a failure")
return 0
