-- ref_all (the batch form of an op's reference, doc/ops.md) gives what ref gives, element by
-- element, for every op that has one, at several sizes and attribute settings. TAP output.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local L = require("oplib")
local t = L.tap()
local R = L.rng(777)

-- attribute settings worth trying per op (the defaults always run)
local variants = {
  cumsum = { { exclusive = true } },
  causal_attention = { { scale = 0.25 } },
}

local with = 0
for _, name in ipairs(L.list_ops()) do
  local o = L.load_op(name)
  if o.ref_all ~= nil then
    with = with + 1
    t.ok(type(o.ref_all) == "function" or type(o.ref_all) == "table", name .. ": ref_all is a function or a table")
    local syms = {}
    for s in pairs(L.size_symbols(o)) do syms[#syms + 1] = s end
    table.sort(syms)
    local settings = { {} }
    for _, v in ipairs(variants[name] or {}) do settings[#settings + 1] = v end
    for _, attrs in ipairs(settings) do
      for round = 0, 3 do
        -- round 0: the smallest candidates; then other candidates, kept small
        local sizes, numel = {}, 1
        for _, s in ipairs(syms) do
          local c = o.sizes[s]
          local v = c[(round * 3 + #s) % #c + 1]
          if round == 0 then v = c[1] end
          while v > 70 do v = v // 3 end
          sizes[s] = v
          numel = numel * v
        end
        local label = ("%s ref_all == ref at %s%s"):format(name,
          (function() local p = {}; for _, s in ipairs(syms) do p[#p + 1] = s .. "=" .. sizes[s] end; return table.concat(p, ",") end)(),
          next(attrs) and " (attrs changed)" or "")
        t.check(label, function()
          local ins = L.random_inputs(o, sizes, attrs, R)
          local want = L.eval(o, sizes, attrs, ins)
          local got = L.eval_all(o, sizes, attrs, ins)
          for oname, w in pairs(want) do
            local g = got[oname]
            for i = 1, w.n do
              if not L.close(g.flat[i], w.flat[i], 1e-12, 1e-12) then
                return false, ("%s[%d]: ref_all %s, ref %s"):format(oname, i - 1, tostring(g.flat[i]), tostring(w.flat[i]))
              end
            end
          end
          return true
        end)
      end
    end
  end
end
t.ok(with >= 6, "ops with a ref_all (" .. with .. ")")
t.done()
