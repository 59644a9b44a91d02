-- Stand-in for the engine's op/problem loader, on plain Lua numbers, for lua5.4 tests.
-- It mirrors the contract of doc/ops.md: ops are loaded in an environment that holds
-- only `op` and the value-math functions, so a ref that reaches for anything else fails here.
local M = {}

local function tanh(x)
  if x > 20 then return 1.0 elseif x < -20 then return -1.0 end
  local e = math.exp(2 * x)
  return (e - 1) / (e + 1)
end

-- erf to ~1e-15: Taylor series near 0, continued fraction (erfc) in the tails.
local function erf(x)
  local ax = math.abs(x)
  if ax < 2.5 then
    local sum, term, n = x, x, 0
    repeat
      n = n + 1
      term = -term * x * x / n
      local add = term / (2 * n + 1)
      sum = sum + add
    until math.abs(add) < 1e-17 * math.abs(sum) or n > 200
    return 2 / math.sqrt(math.pi) * sum
  end
  if ax > 6 then return x > 0 and 1.0 or -1.0 end
  -- erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x+ 1/2/(x+ 1/(x+ 3/2/(x+ ...))))
  local f = ax
  for k = 60, 1, -1 do f = ax + (k / 2) / f end
  local erfc = math.exp(-ax * ax) / math.sqrt(math.pi) / f
  return x > 0 and 1 - erfc or erfc - 1
end

local function vmax(a, ...)
  for i = 1, select("#", ...) do local b = select(i, ...); if b > a then a = b end end
  return a
end
local function vmin(a, ...)
  for i = 1, select("#", ...) do local b = select(i, ...); if b < a then a = b end end
  return a
end

-- The value-math environment (doc/ops.md lists exactly these names).
M.mathenv = {
  max = vmax, min = vmin,
  exp = math.exp, log = math.log, sqrt = math.sqrt,
  rsqrt = function(x) return 1 / math.sqrt(x) end,
  tanh = tanh, erf = erf, abs = math.abs,
  pow = function(a, b) return a ^ b end,
  floor = math.floor, ceil = math.ceil,
  where = function(c, a, b) if c then return a else return b end end,
  lt = function(a, b) return a < b end, le = function(a, b) return a <= b end,
  gt = function(a, b) return a > b end, ge = function(a, b) return a >= b end,
  eq = function(a, b) return a == b end, ne = function(a, b) return a ~= b end,
}

-- Non-value helpers the op files may use (Lua control flow on indices, sizes, attrs).
local plain = { ipairs = ipairs, pairs = pairs, select = select, type = type,
  error = error, assert = assert, tostring = tostring, tonumber = tonumber }

local function op_ctor(name)
  return function(t) t.name = name; return t end
end

function M.env(mathenv)
  local e = { op = op_ctor }
  for k, v in pairs(mathenv or M.mathenv) do e[k] = v end
  for k, v in pairs(plain) do e[k] = v end
  return e
end

-- repository root: two levels above this file (DIRIGO_ROOT overrides)
do
  local src = debug.getinfo(1, "S").source:sub(2)
  local dir = src:match("^(.*)/[^/]*$") or "."
  M.root = os.getenv("DIRIGO_ROOT") or (dir .. "/../..")
end

function M.load_op(name, mathenv)
  local path = M.root .. "/lua/ops/" .. name .. ".lua"
  local chunk, err = loadfile(path, "t", M.env(mathenv))
  if not chunk then error(err) end
  local o = chunk()
  assert(type(o) == "table" and o.name == name, path .. ": must return op \"" .. name .. "\" {...}")
  return o
end

function M.list_ops()
  local names = {}
  local p = io.popen("ls '" .. M.root .. "/lua/ops'")
  for f in p:lines() do local n = f:match("^(.-)%.lua$"); if n then names[#names + 1] = n end end
  p:close()
  table.sort(names)
  return names
end

-- C integer expression over sizes/attrs -> Lua value. Division truncates (operands >= 0 here).
function M.cexpr(s, scope)
  if type(s) == "number" then return s end
  -- ceil(a/b) is a ceiling division (DESIGN 3.1 launch expressions): rewrite to (a + b - 1)/b
  local e = s:gsub("ceil%s*(%b())", function(par)
    local a, b = par:sub(2, -2):match("^(.-)/([^/]-)$")
    if not a then return par end
    return ("((%s) + (%s) - 1)/(%s)"):format(a, b, b)
  end)
  e = e:gsub("!=", "~="):gsub("&&", " and "):gsub("||", " or ")
  e = e:gsub("/", "//")
  local env = setmetatable({
    min = math.min, max = math.max,
  }, { __index = function(_, k)
    local v = scope[k]
    if v == nil then error("unknown name '" .. k .. "' in expression '" .. s .. "'") end
    if v == true then return 1 elseif v == false then return 0 end
    return v
  end })
  local f, err = load("return " .. e, "=expr", "t", env)
  if not f then error("bad expression '" .. s .. "': " .. err) end
  return f()
end

-- Shape (list, or function of attrs) -> list of integers.
function M.shape(o, spec, attrs, sizes)
  if type(spec) == "function" then spec = spec(attrs) end
  local scope = setmetatable({}, { __index = function(_, k)
    if sizes[k] ~= nil then return sizes[k] end
    return attrs[k]
  end })
  local out = {}
  for i, d in ipairs(spec) do out[i] = M.cexpr(d, scope) end
  return out
end

function M.attrs(o, over)
  local a = {}
  for k, v in pairs(o.attrs or {}) do a[k] = v end
  for k, v in pairs(over or {}) do a[k] = v end
  return a
end

-- A tensor view over a flat 1-based Lua array with 0-based, bounds-checked T.x[i][j] access.
function M.tensor(name, shape, flat)
  local n = 1
  for _, d in ipairs(shape) do n = n * d end
  assert(#flat == n, name .. ": " .. #flat .. " values for " .. n .. " elements")
  local function view(dim, base)
    if dim > #shape then return flat[base + 1] end
    local stride = 1
    for k = dim + 1, #shape do stride = stride * shape[k] end
    return setmetatable({}, {
      __index = function(_, i)
        if math.type(i) ~= "integer" or i < 0 or i >= shape[dim] then
          error(("%s: index %s out of range [0,%d) in dim %d"):format(name, tostring(i), shape[dim], dim - 1), 2)
        end
        if dim == #shape then return flat[base + i + 1] end
        return view(dim + 1, base + i * stride)
      end,
      __newindex = function() error(name .. " is read-only", 2) end,
    })
  end
  if #shape == 0 then return flat[1] end
  return view(1, 0)
end

-- Nested Lua tables ({{1, 2}, {3, 4}}) -> shape, flat (row-major), for M.tensor / M.eval inputs.
function M.flatten(nested)
  local shape, flat = {}, {}
  local t = nested
  while type(t) == "table" do shape[#shape + 1] = #t; t = t[1] end
  local function walk(x, d)
    if d > #shape then flat[#flat + 1] = x; return end
    assert(type(x) == "table" and #x == shape[d], "ragged nested table")
    for i = 1, #x do walk(x[i], d + 1) end
  end
  walk(nested, 1)
  return shape, flat
end

-- Evaluate every element of every output. inputs: name -> flat array (accumulate outputs'
-- old contents go here too). Returns name -> {shape=, flat=} with nil for unchecked elements.
function M.eval(o, sizes, attrs_over, inputs)
  local attrs = M.attrs(o, attrs_over)
  local T = {}
  for k, v in pairs(sizes) do T[k] = v end
  for k, v in pairs(attrs) do T[k] = v end
  local function bind(name, shp)
    local s = M.shape(o, shp, attrs, sizes)
    T[name] = M.tensor(name, s, assert(inputs[name], "missing input " .. name))
  end
  for name, shp in pairs(o.inputs) do bind(name, shp) end
  for _, name in ipairs(o.accumulate or {}) do bind(name, o.outputs[name]) end
  local res = {}
  for name, shp in pairs(o.outputs) do
    local s = M.shape(o, shp, attrs, sizes)
    local ref = type(o.ref) == "table" and o.ref[name] or o.ref
    assert(type(ref) == "function", o.name .. ": no ref for output " .. name)
    local flat, n = {}, 1
    for _, d in ipairs(s) do n = n * d end
    local idx = {}
    for lin = 0, n - 1 do
      local r = lin
      for k = #s, 1, -1 do idx[k] = r % s[k]; r = r // s[k] end
      flat[lin + 1] = ref(T, table.unpack(idx, 1, #s))
    end
    res[name] = { shape = s, flat = flat, n = n }
  end
  return res
end

-- The batch form: every output through ref_all(T, out, name) where the op has one
-- (out: a flat, 0-based, write-checked array, as the engine gives it; doc/ops.md), else
-- through ref per element as M.eval. Returns what M.eval returns.
function M.eval_all(o, sizes, attrs_over, inputs)
  local attrs = M.attrs(o, attrs_over)
  local T = {}
  for k, v in pairs(sizes) do T[k] = v end
  for k, v in pairs(attrs) do T[k] = v end
  local function bind(name, shp)
    local s = M.shape(o, shp, attrs, sizes)
    T[name] = M.tensor(name, s, assert(inputs[name], "missing input " .. name))
  end
  for name, shp in pairs(o.inputs) do bind(name, shp) end
  for _, name in ipairs(o.accumulate or {}) do bind(name, o.outputs[name]) end
  local res = {}
  for name, shp in pairs(o.outputs) do
    local fn = type(o.ref_all) == "table" and o.ref_all[name] or o.ref_all
    if type(fn) ~= "function" then
      local r = M.eval(o, sizes, attrs_over, inputs)
      return r
    end
    local s = M.shape(o, shp, attrs, sizes)
    local n = 1
    for _, d in ipairs(s) do n = n * d end
    local flat = {}
    local out = setmetatable({}, {
      __index = function(_, i) return flat[i + 1] end,
      __newindex = function(_, i, v)
        if math.type(i) ~= "integer" or i < 0 or i >= n then
          error(("%s: flat index %s out of range [0,%d)"):format(name, tostring(i), n), 2)
        end
        flat[i + 1] = v
      end,
      __len = function() return n end,
    })
    fn(T, out, name)
    res[name] = { shape = s, flat = flat, n = n }
  end
  return res
end

-- Deterministic pseudo-random numbers (xorshift), so failures reproduce.
function M.rng(seed)
  local s = seed or 12345
  local r = {}
  function r.u() s = (s ~ (s << 13)) & 0xffffffff; s = s ~ (s >> 17); s = (s ~ (s << 5)) & 0xffffffff; return s / 4294967296 end
  function r.normal() local u1, u2 = r.u() + 1e-12, r.u(); return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2) end
  function r.int(lo, hi) return lo + math.floor(r.u() * (hi - lo + 1)) end
  function r.fill(n, f) local t = {}; for i = 1, n do t[i] = f() end; return t end
  return r
end

-- Random inputs for an op at given sizes (index-valued inputs drawn inside their ranges).
function M.random_inputs(o, sizes, attrs_over, rng)
  local attrs = M.attrs(o, attrs_over)
  local scope = setmetatable({}, { __index = function(_, k) if sizes[k] ~= nil then return sizes[k] end return attrs[k] end })
  local ins = {}
  local function gen(name, shp)
    local s = M.shape(o, shp, attrs, sizes)
    local n = 1
    for _, d in ipairs(s) do n = n * d end
    local rg = o.ranges and o.ranges[name]
    if rg then
      local lo, hi = M.cexpr(rg[1], scope), M.cexpr(rg[2], scope)
      ins[name] = rng.fill(n, function() return rng.int(lo, hi) end)
    elseif o.positive and o.positive[name] then
      ins[name] = rng.fill(n, function() return 0.1 + rng.u() end)
    else
      ins[name] = rng.fill(n, rng.normal)
    end
  end
  for name, shp in pairs(o.inputs) do gen(name, shp) end
  for _, name in ipairs(o.accumulate or {}) do gen(name, o.outputs[name]) end
  return ins
end

-- Size symbols an op uses (keys of `sizes` plus every identifier in its shapes).
function M.size_symbols(o)
  local syms = {}
  for k in pairs(o.sizes or {}) do syms[k] = true end
  return syms
end

-- Problem specs under samples/: .lua files that `return problem {` (other Lua files there, such
-- as session scripts, are not specs) and .cu files that open with a /* dirigo: */ block.
function M.sample_specs()
  local out = {}
  local p = io.popen("cd '" .. M.root .. "' && find samples \\( -name '*.lua' -o -name '*.cu' \\) | sort")
  for f in p:lines() do
    local h = io.open(M.root .. "/" .. f, "rb")
    local text = h and h:read("a") or ""
    if h then h:close() end
    if (f:match("%.lua$") and text:match("^%s*[^\n]-return%s+problem%s*[{(]") or text:match("\n%s*return%s+problem%s*[{(]"))
      or (f:match("%.cu$") and text:match("^%s*/%*%s*dirigo:")) then
      out[#out + 1] = f
    end
  end
  p:close()
  return out
end

-- Tiny TAP producer.
function M.tap()
  local t = { n = 0, failed = 0 }
  function t.ok(cond, name, diag)
    t.n = t.n + 1
    if cond then print(("ok %d - %s"):format(t.n, name))
    else
      t.failed = t.failed + 1
      print(("not ok %d - %s"):format(t.n, name))
      if diag then for line in tostring(diag):gmatch("[^\n]+") do print("# " .. line) end end
    end
  end
  function t.check(name, f)   -- f returns true or (false, diag); errors count as failures
    local okc, res, diag = pcall(f)
    if not okc then t.ok(false, name, res) else t.ok(res, name, diag) end
  end
  function t.done()
    print("1.." .. t.n)
    os.exit(t.failed == 0 and 0 or 1)
  end
  return t
end

function M.close(a, b, atol, rtol)
  atol, rtol = atol or 1e-9, rtol or 1e-9
  if a == nil or b == nil then return a == b end
  return math.abs(a - b) <= atol + rtol * math.abs(b)
end

return M
