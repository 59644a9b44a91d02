-- Checks every op in lua/ops/ against independently written computations. TAP output.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local L = require("oplib")
local S = require("symbolic")
local t = L.tap()
local R = L.rng(20240601)

local ops = {}
for _, name in ipairs(L.list_ops()) do
  local okl, o = pcall(L.load_op, name)
  t.ok(okl, "load op " .. name, not okl and o or nil)
  if okl then ops[name] = o end
end
t.ok(#L.list_ops() >= 30, "at least 30 ops (" .. #L.list_ops() .. ")")

-- run an op: sizes, attrs, inputs (flat arrays) -> outputs (flat arrays)
local function run(name, sizes, attrs, ins)
  local r = L.eval(ops[name], sizes, attrs or {}, ins)
  local out = {}
  for k, v in pairs(r) do out[k] = v.flat end
  return out, r
end
local function randn(n) return R.fill(n, R.normal) end
local function allclose(got, want, atol, rtol, n)
  n = n or #want
  for i = 1, n do
    if not L.close(got[i], want[i], atol or 1e-9, rtol or 1e-9) then
      return false, ("element %d: got %s want %s"):format(i - 1, tostring(got[i]), tostring(want[i]))
    end
  end
  return true
end

---------------------------------------------------------------- schema, for every op
local function symbols_of_shape(shp, attrs, acc)
  if type(shp) == "function" then shp = shp(attrs) end
  for _, d in ipairs(shp) do
    if type(d) == "string" then
      for id in d:gmatch("[%a_][%w_]*") do acc[id] = true end
    end
  end
end
for _, name in ipairs(L.list_ops()) do
  local o = ops[name]
  if o then
    t.check("schema " .. name, function()
      for _, f in ipairs({ "inputs", "outputs", "sizes", "realistic" }) do
        if type(o[f]) ~= "table" then return false, "missing field " .. f end
      end
      if type(o.ref) ~= "function" and type(o.ref) ~= "table" then return false, "ref" end
      local attrs = L.attrs(o)
      local syms = {}
      for _, shp in pairs(o.inputs) do symbols_of_shape(shp, attrs, syms) end
      for oname, shp in pairs(o.outputs) do
        symbols_of_shape(shp, attrs, syms)
        if type(o.ref) == "table" and type(o.ref[oname]) ~= "function" then return false, "no ref." .. oname end
      end
      for s in pairs(syms) do
        if attrs[s] == nil then
          if type(o.sizes[s]) ~= "table" or #o.sizes[s] < 2 then return false, "size symbol " .. s .. " lacks candidates" end
          if o.realistic[s] == nil then return false, "realistic lacks " .. s end
          local has1, odd = false, false
          for _, v in ipairs(o.sizes[s]) do if v == 1 then has1 = true end; if v > 2 and v & (v - 1) ~= 0 then odd = true end end
          if not odd then return false, s .. ": no non-power-of-two candidate" end
        end
      end
      for _, a in ipairs(o.accumulate or {}) do if not o.outputs[a] then return false, "accumulate names no output: " .. a end end
      if o.tolerance then
        for dt, tl in pairs(o.tolerance) do
          if type(tl) ~= "table" or tl.atol == nil or tl.rtol == nil then return false, "tolerance." .. dt end
        end
      end
      return true
    end)
  end
end

---------------------------------------------------------------- symbolic run, for every op
-- Smallest interesting sizes: the second-smallest candidate of each symbol (capped), so that
-- reductions have more than one term. Every output element must come out as a term (or a number
-- or nil), and evaluating the term on the same inputs must equal the concrete run.
local symenv = S.env(L.mathenv)
for _, name in ipairs(L.list_ops()) do
  local o = ops[name]
  if o then
    t.check("symbolic ref " .. name, function()
      local so = L.load_op(name, symenv)
      local sizes = {}
      for s, c in pairs(o.sizes) do
        local v = c[1]
        for _, x in ipairs(c) do if x > 1 and x <= 5 then v = x; break end end
        sizes[s] = v
      end
      -- respect op constraints by growing spatial sizes until they hold
      local function okc()
        local scope = setmetatable({}, { __index = function(_, k) if sizes[k] ~= nil then return sizes[k] end return L.attrs(o)[k] end })
        for _, c in ipairs(o.constraints or {}) do if not L.cexpr(c, scope) then return false end end
        return true
      end
      local guard = 0
      while not okc() do for _, s in ipairs({ "H", "W" }) do if sizes[s] then sizes[s] = sizes[s] + 1 end end; guard = guard + 1; assert(guard < 20) end
      local ins = L.random_inputs(o, sizes, {}, R)
      local sins = {}
      for k, flat in pairs(ins) do
        if o.ranges and o.ranges[k] then sins[k] = flat
        else
          sins[k] = {}
          for i, v in ipairs(flat) do sins[k][i] = S.var(k .. (i - 1), v) end
        end
      end
      local want = L.eval(o, sizes, {}, ins)
      local got = L.eval(so, sizes, {}, sins)
      for oname, r in pairs(want) do
        for i = 1, r.n do
          local g = S.eval(got[oname].flat[i])
          if not L.close(g, r.flat[i], 1e-12, 1e-9) then
            return false, ("%s[%d]: symbolic %s concrete %s"):format(oname, i - 1, tostring(g), tostring(r.flat[i]))
          end
        end
      end
      return true
    end)
  end
end

---------------------------------------------------------------- elementwise
local ew_x = { -6, -3.5, -1, -0.5, -1e-3, 0, 1e-3, 0.25, 0.5, 1, 2, 3.7, 8 }
local N = #ew_x
local function ew(name, attrs) return run(name, { N = N }, attrs, { x = ew_x }).y end
local function cmp(name, f, attrs, tol)
  t.check(name .. " values", function()
    local want = {}
    for i, x in ipairs(ew_x) do want[i] = f(x) end
    return allclose(ew(name, attrs), want, tol or 1e-12, tol or 1e-12)
  end)
end
local function sigm(x) return math.exp(x) / (1 + math.exp(x)) end
cmp("relu", function(x) return x > 0 and x or 0 end)
cmp("sigmoid", sigm)
cmp("silu", function(x) return x * sigm(x) end)
cmp("tanh", function(x) return (math.exp(x) - math.exp(-x)) / (math.exp(x) + math.exp(-x)) end)
cmp("gelu_tanh", function(x) local u = math.sqrt(2 / math.pi) * (x + 0.044715 * x ^ 3); return x * (1 - 1 / (math.exp(2 * u) + 1)) end)
cmp("elu", function(x) if x > 0 then return x end return math.exp(x) - 1 end)
cmp("elu", function(x) if x > 0 then return x end return 0.3 * (math.exp(x) - 1) end, { alpha = 0.3 })
cmp("leaky_relu", function(x) if x > 0 then return x end return 0.01 * x end)
cmp("leaky_relu", function(x) if x > 0 then return x end return 0.2 * x end, { negative_slope = 0.2 })
cmp("scale", function(x) return 0.5 * x end)
cmp("scale", function(x) return -3 * x end, { alpha = -3 })
-- gelu_erf against published values of Phi (x * Phi(x)); erf itself against tables
t.check("erf table values", function()
  local tab = { [0.5] = 0.5204998778130465, [1] = 0.8427007929497149, [2] = 0.9953222650189527,
                [3] = 0.9999779095030014, [-1.5] = -0.9661051464753108, [0] = 0, [4] = 0.9999999845827421 }
  for x, v in pairs(tab) do if not L.close(L.mathenv.erf(x), v, 1e-14, 1e-13) then return false, "erf(" .. x .. ")" end end
  return true
end)
t.check("gelu_erf values", function()
  local y = run("gelu_erf", { N = 4 }, {}, { x = { 1, -0.5, 0, 2 } }).y
  return allclose(y, { 0.8413447460685429, -0.15426876936299347, 0, 1.9544997361036416 }, 1e-13, 1e-13)
end)
t.check("gelu_tanh close to gelu_erf", function()
  local a, b = ew("gelu_tanh"), ew("gelu_erf")
  return allclose(a, b, 1e-3, 0)
end)
t.check("add / mul / residual_add", function()
  local a, b = randn(17), randn(17)
  local c1 = run("add", { N = 17 }, {}, { a = a, b = b }).c
  local c2 = run("mul", { N = 17 }, {}, { a = a, b = b }).c
  local y = run("residual_add", { N = 17 }, { alpha = 0.25 }, { x = a, r = b }).y
  local y1 = run("residual_add", { N = 17 }, {}, { x = a, r = b }).y
  for i = 1, 17 do
    if c1[i] ~= a[i] + b[i] or c2[i] ~= a[i] * b[i] or not L.close(y[i], a[i] + b[i] / 4) or y1[i] ~= c1[i] then
      return false, "element " .. i - 1
    end
  end
  return true
end)

---------------------------------------------------------------- reductions
t.check("reductions along rows and columns", function()
  local n, c = 3, 7
  local x = randn(n * c)
  local function at(i, k) return x[i * c + k + 1] end
  -- transpose of x, to check dim = 0 against dim = 1 of the transpose
  local xt = {}
  for i = 0, n - 1 do for k = 0, c - 1 do xt[k * n + i + 1] = at(i, k) end end
  for _, name in ipairs({ "sum", "mean", "max", "min", "sumsq", "l2norm", "argmax" }) do
    local y = run(name, { N = n, C = c }, {}, { x = x }).y
    for i = 0, n - 1 do
      local s, ss, mx, mn, am = 0, 0, -math.huge, math.huge, -1
      for k = c - 1, 0, -1 do   -- backwards on purpose: a different association order
        local v = at(i, k)
        s = s + v; ss = ss + v * v
        if v >= mx then mx = v; am = k end
        if v < mn then mn = v end
      end
      local want = ({ sum = s, mean = s / c, max = mx, min = mn, sumsq = ss, l2norm = math.sqrt(ss), argmax = am })[name]
      if not L.close(y[i + 1], want, 1e-12, 1e-12) then return false, name .. " row " .. i end
    end
    local y0 = run(name, { N = c, C = n }, { dim = 0 }, { x = xt }).y
    local ok, d = allclose(y0, y, 1e-12, 1e-12, n)
    if not ok or #y0 ~= n then return false, name .. " dim=0 of transpose: " .. tostring(d) end
  end
  return true
end)
t.check("argmax ties pick the first index", function()
  local x = { 1, 5, 5, 2,   -1, -1, -1, -1,   3, 7, 0, 7 }
  local y = run("argmax", { N = 3, C = 4 }, {}, { x = x }).y
  local y0 = run("argmax", { N = 3, C = 4 }, { dim = 0 }, { x = x }).y
  return allclose(y, { 1, 0, 1 }) and allclose(y0, { 2, 2, 0, 2 }), "argmax " .. table.concat(y, ",") .. " / " .. table.concat(y0, ",")
end)
t.check("full reduction of a vector is N = 1", function()
  local x = randn(1000)
  local s = 0
  for i = 1000, 1, -1 do s = s + x[i] end
  return L.close(run("sum", { N = 1, C = 1000 }, {}, { x = x }).y[1], s, 1e-12, 1e-12)
end)

---------------------------------------------------------------- softmax family
t.check("softmax rows sum to 1 and match exp(x)/sum exp(x)", function()
  local n, c = 4, 37
  local x = randn(n * c)
  local y = run("softmax", { N = n, C = c }, {}, { x = x }).y
  for i = 0, n - 1 do
    local s, den = 0, 0
    for k = 0, c - 1 do den = den + math.exp(x[i * c + k + 1]) end
    for k = 0, c - 1 do
      local v = y[i * c + k + 1]
      s = s + v
      if not L.close(v, math.exp(x[i * c + k + 1]) / den, 1e-15, 1e-12) then return false, "value" end
    end
    if not L.close(s, 1, 1e-12, 0) then return false, "row sum " .. s end
  end
  return true
end)
t.check("softmax is shift invariant and C = 1 gives 1", function()
  local x = randn(9)
  local x2 = {}
  for i, v in ipairs(x) do x2[i] = v + 100 end
  local ok = allclose(run("softmax", { N = 1, C = 9 }, {}, { x = x }).y, run("softmax", { N = 1, C = 9 }, {}, { x = x2 }).y, 1e-14, 1e-10)
  return ok and run("softmax", { N = 2, C = 1 }, {}, { x = { -3, 500 } }).y[2] == 1
end)
t.check("log_softmax = log(softmax)", function()
  local x = randn(3 * 33)
  local a = run("log_softmax", { N = 3, C = 33 }, {}, { x = x }).y
  local b = run("softmax", { N = 3, C = 33 }, {}, { x = x }).y
  for i = 1, #a do if not L.close(a[i], math.log(b[i]), 1e-12, 1e-12) then return false, i end end
  return true
end)
t.check("cross_entropy = -log_softmax[target], ignore_index gives 0", function()
  local n, v = 5, 11
  local x = randn(n * v)
  local tg = { 0, 10, 3, -100, 7 }
  local loss = run("cross_entropy", { N = n, V = v }, {}, { x = x, targets = tg }).loss
  local ls = run("log_softmax", { N = n, C = v }, {}, { x = x }).y
  for i = 0, n - 1 do
    local want = tg[i + 1] == -100 and 0 or -ls[i * v + tg[i + 1] + 1]
    if not L.close(loss[i + 1], want, 1e-12, 1e-12) then return false, "row " .. i end
  end
  return true
end)

---------------------------------------------------------------- normalisations
t.check("layernorm: unit weights give mean 0, variance var/(var+eps)", function()
  local n, c = 3, 29
  local x = randn(n * c)
  local w, b = {}, {}
  for i = 1, c do w[i] = 1; b[i] = 0 end
  local y = run("layernorm", { N = n, C = c }, {}, { x = x, w = w, b = b }).y
  for i = 0, n - 1 do
    -- one-pass moments, unlike the op's two-pass
    local s, ss = 0, 0
    for k = 1, c do local v = x[i * c + k]; s = s + v; ss = ss + v * v end
    local var = ss / c - (s / c) ^ 2
    local m2, m1 = 0, 0
    for k = 1, c do m1 = m1 + y[i * c + k]; m2 = m2 + y[i * c + k] ^ 2 end
    if not L.close(m1 / c, 0, 1e-12, 0) then return false, "mean" end
    if not L.close(m2 / c, var / (var + 1e-5), 1e-10, 1e-10) then return false, "var" end
  end
  return true
end)
t.check("layernorm affine and rmsnorm formula", function()
  local n, c = 2, 13
  local x, w, b = randn(n * c), randn(c), randn(c)
  local y = run("layernorm", { N = n, C = c }, { eps = 1e-3 }, { x = x, w = w, b = b }).y
  local r = run("rmsnorm", { N = n, C = c }, { eps = 1e-3 }, { x = x, w = w }).y
  for i = 0, n - 1 do
    local s, ss = 0, 0
    for k = 1, c do s = s + x[i * c + k]; ss = ss + x[i * c + k] ^ 2 end
    local mean, var = s / c, ss / c - (s / c) ^ 2
    for k = 1, c do
      local xv = x[i * c + k]
      if not L.close(y[i * c + k], (xv - mean) / math.sqrt(var + 1e-3) * w[k] + b[k], 1e-10, 1e-10) then return false, "layernorm" end
      if not L.close(r[i * c + k], xv / math.sqrt(ss / c + 1e-3) * w[k], 1e-12, 1e-12) then return false, "rmsnorm" end
    end
  end
  return true
end)
t.check("batchnorm inference", function()
  local N, C, H, W = 2, 3, 2, 5
  local x = randn(N * C * H * W)
  local mean, var, w, b = randn(C), {}, randn(C), randn(C)
  for i = 1, C do var[i] = 0.5 + i end
  local y = run("batchnorm", { N = N, C = C, H = H, W = W }, {}, { x = x, mean = mean, var = var, w = w, b = b }).y
  for i = 1, #x do
    local c = ((i - 1) // (H * W)) % C + 1
    if not L.close(y[i], w[c] * (x[i] - mean[c]) / math.sqrt(var[c] + 1e-5) + b[c], 1e-12, 1e-12) then return false, i end
  end
  return true
end)

---------------------------------------------------------------- matmul family
local function mat(rows, cols, f) local m = {}; for i = 0, rows - 1 do for j = 0, cols - 1 do m[i * cols + j + 1] = f(i, j) end end; return m end
local function transposed(a, rows, cols) return mat(cols, rows, function(i, j) return a[j * cols + i + 1] end) end
t.check("matmul vs k-outer accumulation, all four transposes", function()
  local M, Nn, K = 5, 3, 7
  local a, b = randn(M * K), randn(K * Nn)
  local want = {}
  for i = 1, M * Nn do want[i] = 0 end
  for k = 0, K - 1 do                      -- outer-product order, unlike the op's dot products
    for i = 0, M - 1 do for j = 0, Nn - 1 do
      want[i * Nn + j + 1] = want[i * Nn + j + 1] + a[i * K + k + 1] * b[k * Nn + j + 1]
    end end
  end
  local at, bt = transposed(a, M, K), transposed(b, K, Nn)
  local sz = { M = M, N = Nn, K = K }
  for _, case in ipairs({ { {}, a, b }, { { transA = true }, at, b }, { { transB = true }, a, bt }, { { transA = true, transB = true }, at, bt } }) do
    local ok, d = allclose(run("matmul", sz, case[1], { a = case[2], b = case[3] }).c, want, 1e-12, 1e-12)
    if not ok then return false, d end
  end
  local scaled = run("matmul", sz, { alpha = 2 }, { a = a, b = b }).c
  return allclose(scaled, (function() local s = {}; for i, v in ipairs(want) do s[i] = 2 * v end; return s end)(), 1e-12, 1e-12)
end)
t.check("bmm = matmul per batch; gemv = matmul with N = 1", function()
  local B, M, Nn, K = 3, 4, 5, 6
  local a, b = randn(B * M * K), randn(B * K * Nn)
  local c = run("bmm", { B = B, M = M, N = Nn, K = K }, { transB = true }, { a = a, b = (function()
    local bt = {}
    for z = 0, B - 1 do
      local t2 = transposed({ table.unpack(b, z * K * Nn + 1, (z + 1) * K * Nn) }, K, Nn)
      for i, v in ipairs(t2) do bt[z * K * Nn + i] = v end
    end
    return bt end)() }).c
  for z = 0, B - 1 do
    local cz = run("matmul", { M = M, N = Nn, K = K }, {}, { a = { table.unpack(a, z * M * K + 1, (z + 1) * M * K) }, b = { table.unpack(b, z * K * Nn + 1, (z + 1) * K * Nn) } }).c
    local ok, d = allclose({ table.unpack(c, z * M * Nn + 1, (z + 1) * M * Nn) }, cz, 1e-12, 1e-12)
    if not ok then return false, "batch " .. z .. ": " .. d end
  end
  local x = randn(K)
  local y = run("gemv", { M = M, K = K }, {}, { a = { table.unpack(a, 1, M * K) }, x = x }).y
  return allclose(y, run("matmul", { M = M, N = 1, K = K }, {}, { a = { table.unpack(a, 1, M * K) }, b = x }).c, 1e-12, 1e-12)
end)

---------------------------------------------------------------- conv and pooling
t.check("conv2d hand-worked 3x3 * 2x2 ones", function()
  local x = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }
  local w = { 1, 1, 1, 1 }
  local sz = { N = 1, C = 1, H = 3, W = 3, K = 1, R = 2, S = 2 }
  local ok1 = allclose(run("conv2d", sz, {}, { x = x, w = w }).y, { 12, 16, 24, 28 })
  -- padding 1: 4x4 output, corners see one element
  local ok2 = allclose(run("conv2d", sz, { padding = 1 }, { x = x, w = w }).y, { 1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9 })
  -- stride 2 + padding 1: 2x2 output; dilation 2 on 3x3: the four corners
  local ok3 = allclose(run("conv2d", sz, { padding = 1, stride = 2 }, { x = x, w = w }).y, { 1, 5, 11, 28 })
  local ok4 = allclose(run("conv2d", sz, { dilation = 2 }, { x = x, w = w }).y, { 1 + 3 + 7 + 9 })
  return ok1 and ok2 and ok3 and ok4
end)
t.check("conv2d vs zero-padded direct loop, multi-channel", function()
  local N, C, H, W, K, Rr, Ss = 2, 3, 6, 7, 2, 3, 2
  local at = { stride = 2, padding = 1, dilation = 2 }
  local x, w = randn(N * C * H * W), randn(K * C * Rr * Ss)
  local y, r = run("conv2d", { N = N, C = C, H = H, W = W, K = K, R = Rr, S = Ss }, at, { x = x, w = w })
  local OH, OW = r.y.shape[3], r.y.shape[4]
  if OH ~= (6 + 2 - 4 - 1) // 2 + 1 or OW ~= (7 + 2 - 2 - 1) // 2 + 1 then return false, "output shape" end
  local P = at.padding
  local function xp(n, c, h, ww)   -- padded image
    h, ww = h - P, ww - P
    if h < 0 or h >= H or ww < 0 or ww >= W then return 0 end
    return x[((n * C + c) * H + h) * W + ww + 1]
  end
  for n = 0, N - 1 do for k = 0, K - 1 do for oh = 0, OH - 1 do for ow = 0, OW - 1 do
    local s = 0
    for rr = 0, Rr - 1 do for ss = 0, Ss - 1 do for c = 0, C - 1 do
      s = s + xp(n, c, oh * 2 + rr * 2, ow * 2 + ss * 2) * w[((k * C + c) * Rr + rr) * Ss + ss + 1]
    end end end
    if not L.close(y.y[((n * K + k) * OH + oh) * OW + ow + 1], s, 1e-12, 1e-12) then return false, "element" end
  end end end end
  return true
end)
t.check("maxpool2d and avgpool2d hand-worked", function()
  local x = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 }
  local neg = {}
  for i, v in ipairs(x) do neg[i] = -v end
  local sz = { N = 1, C = 1, H = 4, W = 4 }
  local ok = allclose(run("maxpool2d", sz, {}, { x = x }).y, { 6, 8, 14, 16 })
  -- padding 1, kernel 3, stride 2 on all-negative input: padding must not win (PyTorch: -inf)
  ok = ok and allclose(run("maxpool2d", sz, { kernel = 3, padding = 1 }, { x = neg }).y, { -1, -2, -5, -6 })
  ok = ok and allclose(run("avgpool2d", sz, {}, { x = x }).y, { 3.5, 5.5, 11.5, 13.5 })
  ok = ok and allclose(run("avgpool2d", sz, { kernel = 3, padding = 1 }, { x = x }).y, { 14 / 9, 30 / 9, 57 / 9, 99 / 9 })
  ok = ok and allclose(run("avgpool2d", sz, { kernel = 3, padding = 1, count_include_pad = false }, { x = x }).y, { 14 / 4, 30 / 6, 57 / 6, 99 / 9 })
  -- floor mode: 5x5 with kernel 2 stride 2 gives 2x2
  local r = select(2, run("maxpool2d", { N = 1, C = 1, H = 5, W = 5 }, {}, { x = randn(25) }))
  return ok and r.y.shape[3] == 2 and r.y.shape[4] == 2
end)

---------------------------------------------------------------- data movement
t.check("transpose and permute", function()
  local x = randn(5 * 3)
  local y = run("transpose", { M = 5, N = 3 }, {}, { x = x }).y
  if not allclose(y, transposed(x, 5, 3)) then return false, "transpose" end
  local d = { 2, 3, 4, 5 }
  local x4 = randn(2 * 3 * 4 * 5)
  local sz = { D0 = 2, D1 = 3, D2 = 4, D3 = 5 }
  local y1 = run("permute", sz, {}, { x = x4 }).y
  local y2, r2 = run("permute", sz, { perm = { 3, 1, 0, 2 } }, { x = x4 })
  local sh = r2.y.shape
  if sh[1] ~= 5 or sh[2] ~= 3 or sh[3] ~= 2 or sh[4] ~= 4 then return false, "permute shape" end
  for a = 0, 1 do for b = 0, 2 do for c = 0, 3 do for e = 0, 4 do
    local v = x4[((a * 3 + b) * 4 + c) * 5 + e + 1]
    if y1[((a * 4 + c) * 3 + b) * 5 + e + 1] ~= v then return false, "perm 0213" end
    if y2.y[((e * 3 + b) * 2 + a) * 4 + c + 1] ~= v then return false, "perm 3102" end
  end end end end
  return true, d
end)
t.check("tensor views from nested tables", function()
  local shape, flat = L.flatten({ { 1, 2, 3 }, { 4, 5, 6 } })
  local x = L.tensor("x", shape, flat)
  local bad = pcall(function() return x[2][0] end)
  return shape[1] == 2 and shape[2] == 3 and x[1][2] == 6 and x[0][0] == 1 and not bad
end)
t.check("embedding gather", function()
  local V, D = 5, 3
  local w = randn(V * D)
  local ids = { 4, 0, 4, 2 }
  local y = run("embedding", { N = 4, V = V, D = D }, {}, { ids = ids, w = w }).y
  for n = 0, 3 do for d = 0, D - 1 do if y[n * D + d + 1] ~= w[ids[n + 1] * D + d + 1] then return false end end end
  return true
end)
t.check("cumsum inclusive/exclusive", function()
  local n, c = 3, 9
  local x = randn(n * c)
  local inc = run("cumsum", { N = n, C = c }, {}, { x = x }).y
  local exc = run("cumsum", { N = n, C = c }, { exclusive = true }, { x = x }).y
  for i = 0, n - 1 do
    local s = 0
    for k = 1, c do
      local j = i * c + k
      if not L.close(exc[j], s, 1e-12, 1e-12) then return false, "exclusive" end
      s = s + x[j]
      if not L.close(inc[j], s, 1e-12, 1e-12) then return false, "inclusive" end
      if not L.close(inc[j] - exc[j], x[j], 1e-12, 1e-12) then return false, "difference" end
    end
  end
  return exc[1] == 0
end)

---------------------------------------------------------------- attention
t.check("causal attention vs explicit masked softmax(QK^T/sqrt(D)) V", function()
  local B, H, T, D = 2, 2, 5, 3
  local q, k, v = randn(B * H * T * D), randn(B * H * T * D), randn(B * H * T * D)
  local sz = { B = B, H = H, T = T, D = D }
  local o = run("causal_attention", sz, {}, { q = q, k = k, v = v }).o
  local s = run("causal_scores", sz, {}, { q = q, k = k }).s
  local o2 = run("causal_attention", sz, { scale = 0.1 }, { q = q, k = k, v = v }).o
  for bh = 0, B * H - 1 do
    local base = bh * T * D
    for scale_case = 1, 2 do
      local sc = scale_case == 1 and 1 / math.sqrt(D) or 0.1
      local out = scale_case == 1 and o or o2
      for i = 0, T - 1 do
        local p, Z = {}, 0
        for j = 0, T - 1 do
          local dot = 0
          for e = 0, D - 1 do dot = dot + q[base + i * D + e + 1] * k[base + j * D + e + 1] end
          p[j] = j <= i and math.exp(sc * dot) or 0          -- mask, then unshifted softmax
          Z = Z + p[j]
          local sv = s[bh * T * T + i * T + j + 1]
          if scale_case == 1 then
            if j > i and sv ~= nil then return false, "masked score not nil" end
            if j <= i and not L.close(sv, sc * dot, 1e-12, 1e-12) then return false, "score" end
          end
        end
        for e = 0, D - 1 do
          local want = 0
          for j = 0, T - 1 do want = want + p[j] / Z * v[base + j * D + e + 1] end
          if not L.close(out[base + i * D + e + 1], want, 1e-12, 1e-10) then return false, "output" end
        end
      end
    end
    -- row 0 attends only to itself
    for e = 0, D - 1 do if not L.close(o[base + e + 1], v[base + e + 1], 1e-15, 1e-12) then return false, "row 0" end end
  end
  return true
end)

---------------------------------------------------------------- optimiser and atomics
t.check("adamw vs torch.optim.AdamW formulas (decoupled decay first)", function()
  local n = 7
  local p, g, m, v = randn(n), randn(n), randn(n), {}
  for i = 1, n do v[i] = R.u() end
  local at = { lr = 0.01, beta1 = 0.8, beta2 = 0.95, eps = 1e-6, weight_decay = 0.1, step = 3 }
  local r = run("adamw", { N = n }, at, { p = p, g = g, m = m, v = v })
  for i = 1, n do
    local pp = p[i] * (1 - at.lr * at.weight_decay)
    local mm = at.beta1 * m[i] + (1 - at.beta1) * g[i]
    local vv = at.beta2 * v[i] + (1 - at.beta2) * g[i] ^ 2
    local bc1, bc2 = 1 - at.beta1 ^ 3, 1 - at.beta2 ^ 3
    local step_size = at.lr / bc1
    local denom = math.sqrt(vv) / math.sqrt(bc2) + at.eps
    pp = pp - step_size * mm / denom
    if not L.close(r.m[i], mm, 1e-14, 1e-12) or not L.close(r.v[i], vv, 1e-14, 1e-12) then return false, "moments" end
    if not L.close(r.p[i], pp, 1e-14, 1e-12) then return false, ("param %d: %g vs %g"):format(i, r.p[i], pp) end
  end
  return true
end)
t.check("histogram and scatter_add accumulate", function()
  local x = { 0, 3, 3, 1, 3, 0, 2 }
  local h = run("histogram", { N = 7, K = 5 }, {}, { x = x, h = { 10, 0, 0, 0, 1 } }).h
  if not allclose(h, { 12, 1, 1, 3, 1 }) then return false, "histogram " .. table.concat(h, ",") end
  local src = randn(4 * 2)
  local idx = { 2, 0, 2, 2 }
  local y0 = randn(3 * 2)
  local y = run("scatter_add", { N = 4, M = 3, D = 2 }, {}, { src = src, index = idx, y = y0 }).y
  local want = { table.unpack(y0) }
  for i = 0, 3 do for d = 0, 1 do local j = idx[i + 1] * 2 + d + 1; want[j] = want[j] + src[i * 2 + d + 1] end end
  return allclose(y, want, 1e-12, 1e-12)
end)

t.done()
