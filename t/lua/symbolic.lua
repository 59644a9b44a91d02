-- A minimal symbolic value (term tree) with overloaded arithmetic, and a math environment that
-- builds terms. Used to check that every op's ref runs on symbolic values without branching on
-- them: comparing two terms with < or <= raises an error, as the engine's userdata would.
local S = {}
local mt = {}
local function is(v) return getmetatable(v) == mt end
local function mk(op, ...) return setmetatable({ op = op, n = select("#", ...), ... }, mt) end
S.var = function(name, value) return setmetatable({ op = "var", name = name, value = value, n = 0 }, mt) end
mt.__add = function(a, b) return mk("+", a, b) end
mt.__sub = function(a, b) return mk("-", a, b) end
mt.__mul = function(a, b) return mk("*", a, b) end
mt.__div = function(a, b) return mk("/", a, b) end
mt.__unm = function(a) return mk("neg", a) end
mt.__pow = function() error("use pow(a, b) on values, not '^'", 2) end
mt.__lt = function() error("ref compares a symbolic value with '<' (use lt/where)", 2) end
mt.__le = function() error("ref compares a symbolic value with '<=' (use le/where)", 2) end
mt.__idiv = function() error("'//' on a value", 2) end
mt.__mod = function() error("'%' on a value", 2) end
mt.__concat = function() error("'..' on a value", 2) end
mt.__index = function(_, k) error("indexing a value with " .. tostring(k), 2) end

local function wrap(name, nargs)
  return function(...)
    local any = false
    for i = 1, select("#", ...) do if is(select(i, ...)) then any = true end end
    if not any then return S.concrete[name](...) end
    return mk(name, ...)
  end
end

function S.env(concrete)
  S.concrete = concrete
  local e = {}
  for k in pairs(concrete) do e[k] = wrap(k) end
  -- where(cond, a, b): cond is a term when any compared value was symbolic
  e.where = function(c, a, b)
    if is(c) then return mk("where", c, a, b) end
    if c then return a else return b end
  end
  return e
end

-- Evaluate a term (numbers pass through), memoised per node.
function S.eval(t, memo)
  memo = memo or {}
  if not is(t) then return t end
  if memo[t] ~= nil then return memo[t] end
  local r
  if t.op == "var" then r = t.value
  else
    local a = {}
    for i = 1, t.n do a[i] = S.eval(t[i], memo) end
    if t.op == "+" then r = a[1] + a[2]
    elseif t.op == "-" then r = a[1] - a[2]
    elseif t.op == "*" then r = a[1] * a[2]
    elseif t.op == "/" then r = a[1] / a[2]
    elseif t.op == "neg" then r = -a[1]
    elseif t.op == "where" then if a[1] then r = a[2] else r = a[3] end
    else r = S.concrete[t.op](table.unpack(a, 1, t.n)) end
  end
  memo[t] = r
  return r
end
S.is = is
return S
