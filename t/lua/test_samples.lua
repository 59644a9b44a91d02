-- Loads every problem spec in samples/ (.lua files and /* dirigo: */ blocks in .cu files) through
-- a stand-in problem{} and checks it against its op and its source. TAP output.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local L = require("oplib")
local t = L.tap()

local PATTERNS = {}
for p in ([[missing-tail-mask pad-zero-not-neginf assign-not-accumulate missing-scale eps-misplaced
  missing-syncthreads wrong-shuffle-offset wrong-shuffle-mask grid-floors swapped-index wrong-stride
  int32-index-overflow uninit-shared read-past-end-n1 fp16-accum-overflow returns-input returns-zeros
  off-by-one-loop race-on-shared wrong-merge missing-atomic missing-atomic-warps]]):gmatch("%S+") do PATTERNS[p] = true end
local DTYPES = { f32 = 1, f16 = 1, bf16 = 1, f64 = 1, i32 = 1, i64 = 1, u8 = 1, bool = 1 }

local function readfile(p) local f = io.open(p, "rb"); if not f then return nil end; local s = f:read("a"); f:close(); return s end
local function dirname(p) return p:match("^(.*)/[^/]*$") or "." end

-- split on top-level commas (parentheses, brackets, braces and template angle brackets nest)
local function split_args(s)
  local out, depth, cur = {}, 0, {}
  for ch in s:gmatch(".") do
    if ch == "(" or ch == "[" or ch == "{" then depth = depth + 1
    elseif ch == ")" or ch == "]" or ch == "}" then depth = depth - 1 end
    if ch == "," and depth == 0 then out[#out + 1] = table.concat(cur); cur = {}
    else cur[#cur + 1] = ch end
  end
  local last = table.concat(cur)
  if last:match("%S") then out[#out + 1] = last end
  for i, a in ipairs(out) do out[i] = a:match("^%s*(.-)%s*$") end
  return out
end

-- "k<T, 4><<<grid, block, shared>>>(a, b)" -> { kernel=, grid=, block=, shared=, args= }
local function parse_launch(s)
  local pre, cfg, rest = s:match("^%s*(.-)%s*<<<(.-)>>>%s*(.*)$")
  if not pre then return nil, "no <<< >>> in launch" end
  local name = pre:match("^([%a_][%w_]*)%s*$") or pre:match("^([%a_][%w_]*)%s*%b<>%s*$")
  if not name then return nil, "bad kernel name '" .. pre .. "'" end
  local argstr = rest:match("^(%b())%s*;?%s*$")
  if not argstr then return nil, "bad argument list '" .. rest .. "'" end
  local c = split_args(cfg)
  if #c < 2 or #c > 4 then return nil, "launch config needs grid, block[, shared[, stream]]" end
  return { kernel = name, grid = c[1], block = c[2], shared = c[3], args = split_args(argstr:sub(2, -2)) }
end

-- a grid/block value: integer expression, dim3(...) or a {x,y,z} list
local function dims(v, scope)
  if type(v) == "table" then
    local r = {}
    for i, e in ipairs(v) do r[i] = L.cexpr(e, scope) end
    return r
  end
  if type(v) == "number" then return { v } end
  local inner = v:match("^%s*dim3%s*(%b())%s*$")
  if inner then
    local r = {}
    for i, e in ipairs(split_args(inner:sub(2, -2))) do r[i] = L.cexpr(e, scope) end
    return r
  end
  return { L.cexpr(v, scope) }
end

-- number of parameters of __global__ kernel `name` in `src`
local function kernel_params(src, name)
  local s = src:gsub("//[^\n]*", ""):gsub("/%*.-%*/", "")
  local pos = 1
  while true do
    local a, b = s:find("__global__", pos, true)
    if not a then return nil end
    local seg = s:sub(b + 1, b + 400)
    local p1 = seg:find("[%s%*]" .. name .. "%s*%(")
    local p_end = seg:find("[;{]")
    if p1 and (not p_end or p1 < p_end) then
      local par = seg:match(name .. "%s*(%b())", p1)
      if par then
        local inner = par:sub(2, -2)
        if inner:match("^%s*$") or inner:match("^%s*void%s*$") then return 0 end
        return #split_args(inner)
      end
    end
    pos = b + 1
  end
end

local function load_spec(path)
  local env = { problem = function(tb) return tb end }
  if path:match("%.lua$") then
    local chunk, err = loadfile(path, "t", env)
    if not chunk then error(err) end
    return chunk()
  end
  local body = readfile(path):match("^%s*/%*%s*dirigo:(.-)%*/")
  local chunk, err = load("return problem {" .. body .. "}", "=" .. path, "t", env)
  if not chunk then error(err) end
  local spec = chunk()
  spec.source = spec.source or path:match("[^/]*$")
  return spec
end

local specs = L.sample_specs()

local stats = { correct = 0, buggy = 0, patterns = {}, kinds = {}, sources = {} }

for _, rel in ipairs(specs) do
  local path = L.root .. "/" .. rel
  t.check("spec " .. rel, function()
    local spec = load_spec(path)
    if type(spec) ~= "table" then return false, "does not return problem {...}" end
    -- source
    if type(spec.source) ~= "string" then return false, "no source" end
    local srcpath = dirname(path) .. "/" .. spec.source
    local src = readfile(srcpath)
    if not src then return false, "source missing: " .. spec.source end
    stats.sources[dirname(rel) .. "/" .. spec.source] = true
    -- op
    if type(spec.op) ~= "string" then return false, "op must name an op in lua/ops" end
    local okl, o = pcall(L.load_op, spec.op)
    if not okl then return false, "op " .. spec.op .. ": " .. tostring(o) end
    local attrs = L.attrs(o, spec.attrs)
    for k in pairs(spec.attrs or {}) do if o.attrs[k] == nil then return false, "attr " .. k .. " unknown to op" end end
    -- sizes: every size symbol the op's shapes use
    local sizes = spec.sizes or {}
    local syms = {}
    local function collect(shp)
      if type(shp) == "function" then shp = shp(attrs) end
      for _, d in ipairs(shp) do if type(d) == "string" then for id in d:gmatch("[%a_][%w_]*") do syms[id] = true end end end
    end
    for _, shp in pairs(o.inputs) do collect(shp) end
    for _, shp in pairs(o.outputs) do collect(shp) end
    for s in pairs(syms) do
      if attrs[s] == nil then
        local v = sizes[s]
        if math.type(v) ~= "integer" or v < 1 then return false, "size " .. s .. " missing or not a positive integer" end
      end
    end
    local scope = setmetatable({}, { __index = function(_, k) if sizes[k] ~= nil then return sizes[k] end return attrs[k] end })
    -- output shapes must evaluate to positive extents
    for name, shp in pairs(o.outputs) do
      for _, d in ipairs(L.shape(o, shp, attrs, sizes)) do if d < 1 then return false, "output " .. name .. " has an empty dimension" end end
    end
    for _, c in ipairs(o.constraints or {}) do if not L.cexpr(c, scope) then return false, "op constraint fails: " .. c end end
    for _, c in ipairs(spec.constraints or {}) do if not L.cexpr(c, scope) then return false, "spec constraint fails: " .. c end end
    -- dtypes / ranges / scratch
    if spec.dtype and not DTYPES[spec.dtype] then return false, "dtype " .. spec.dtype end
    local tensors = {}
    for k in pairs(o.inputs) do tensors[k] = true end
    for k in pairs(o.outputs) do tensors[k] = true end
    for k, v in pairs(spec.dtypes or {}) do if not tensors[k] or not DTYPES[v] then return false, "dtypes." .. k end end
    for k, v in pairs(spec.ranges or {}) do
      if not tensors[k] or #v ~= 2 then return false, "ranges." .. k end
      if L.cexpr(v[1], scope) > L.cexpr(v[2], scope) then return false, "empty range for " .. k end
    end
    local scratch = {}
    for k, v in pairs(spec.scratch or {}) do
      if tensors[k] then return false, "scratch " .. k .. " shadows a tensor" end
      if type(v.shape) ~= "table" or (v.dtype and not DTYPES[v.dtype]) then return false, "scratch " .. k end
      for _, d in ipairs(v.shape) do if L.cexpr(d, scope) < 1 then return false, "scratch " .. k .. " shape" end end
      scratch[k] = true
    end
    if spec.tolerance ~= nil and (type(spec.tolerance) ~= "table" or type(spec.tolerance.atol) ~= "number" or type(spec.tolerance.rtol) ~= "number") then
      return false, "tolerance must be { atol = number, rtol = number }"
    end
    for k in pairs(spec.defines or {}) do if not src:find(k, 1, true) then return false, "define " .. k .. " not used by the source" end end
    -- launches
    local launches = spec.launch
    if type(launches) == "string" or (type(launches) == "table" and launches.kernel) then launches = { launches } end
    if type(launches) ~= "table" or #launches == 0 then return false, "no launch" end
    local used = {}
    for li, l in ipairs(launches) do
      local pl, err
      if type(l) == "string" then pl, err = parse_launch(l)
      else
        if type(l.kernel) ~= "string" or l.grid == nil or l.block == nil or type(l.args) ~= "table" then return false, "launch table needs kernel, grid, block, args" end
        pl = { kernel = l.kernel:match("^([%a_][%w_]*)"), grid = l.grid, block = l.block, shared = l.shared, args = l.args }
      end
      if not pl then return false, "launch " .. li .. ": " .. err end
      local g, b = dims(pl.grid, scope), dims(pl.block, scope)
      local threads = 1
      for _, v in ipairs(g) do if math.type(v) ~= "integer" or v < 1 then return false, "launch " .. li .. ": grid dimension " .. tostring(v) end end
      for _, v in ipairs(b) do
        if math.type(v) ~= "integer" or v < 1 then return false, "launch " .. li .. ": block dimension " .. tostring(v) end
        threads = threads * v
      end
      if threads > 1024 or #g > 3 or #b > 3 then return false, "launch " .. li .. ": bad block shape" end
      if pl.shared and L.cexpr(pl.shared, scope) < 0 then return false, "shared bytes" end
      local np = kernel_params(src, pl.kernel)
      if not np then return false, "no __global__ " .. pl.kernel .. " in " .. spec.source end
      if np ~= #pl.args then return false, ("launch %d: %s takes %d arguments, launch passes %d"):format(li, pl.kernel, np, #pl.args) end
      for _, a in ipairs(pl.args) do
        if tensors[a] or scratch[a] then used[a] = true
        elseif a == "NULL" or a == "nullptr" or a:match("^std::") then -- tag or null pointer
        else
          local okx, v = pcall(L.cexpr, a, scope)
          if not okx or v == nil then return false, "argument '" .. a .. "' names nothing: " .. tostring(v) end
        end
      end
    end
    for k in pairs(o.outputs) do if not used[k] then return false, "output " .. k .. " is passed to no launch" end end
    for k in pairs(o.inputs) do if not used[k] then return false, "input " .. k .. " is passed to no launch" end end
    -- seeded bug
    if spec.seeded_bug then
      local sb = spec.seeded_bug
      if not PATTERNS[sb.pattern] then return false, "unknown seeded_bug.pattern " .. tostring(sb.pattern) end
      if type(sb.detail) ~= "string" or #sb.detail < 40 then return false, "seeded_bug.detail too short" end
      stats.buggy = stats.buggy + 1
      stats.patterns[sb.pattern] = (stats.patterns[sb.pattern] or 0) + 1
    else
      stats.correct = stats.correct + 1
      stats.kinds[rel:match("^samples/([^/]+)/")] = true
    end
    return true
  end)
end

-- every .cu has a spec
t.check("every sample .cu has a problem spec", function()
  local p2 = io.popen("cd '" .. L.root .. "' && find samples -name '*.cu' | sort")
  local missing = {}
  for f in p2:lines() do if not stats.sources[f] then missing[#missing + 1] = f end end
  p2:close()
  return #missing == 0, "without spec: " .. table.concat(missing, ", ")
end)
local function count(tb) local n = 0; for _ in pairs(tb) do n = n + 1 end; return n end
t.ok(stats.correct >= 30, "at least 30 correct samples (" .. stats.correct .. ")")
t.ok(stats.buggy >= 20, "at least 20 seeded-bug variants (" .. stats.buggy .. ")")
t.ok(count(stats.patterns) >= 15, "at least 15 distinct bug patterns (" .. count(stats.patterns) .. ")")
t.ok(count(stats.kinds) >= 12, "correct samples span at least 12 op kinds (" .. count(stats.kinds) .. ")")
t.done()
