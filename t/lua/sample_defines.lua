-- Prints "<path to .cu> [-DNAME=VALUE ...]" for every sample source, from the specs' defines.
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local L = require("oplib")
local defs = {}
for _, f in ipairs(L.sample_specs()) do
  if f:match("%.lua$") then
  local chunk = loadfile(L.root .. "/" .. f, "t", { problem = function(t) return t end })
  local ok, spec = pcall(chunk)
  if ok and type(spec) == "table" and spec.source then
    local cu = (f:match("^(.*)/[^/]*$") or ".") .. "/" .. spec.source
    local d = {}
    for k, v in pairs(spec.defines or {}) do d[#d + 1] = ("-D%s=%s"):format(k, tostring(v)) end
    table.sort(d)
    defs[cu] = table.concat(d, " ")
  end
  end
end
local q = io.popen("cd '" .. L.root .. "' && find samples -name '*.cu' | sort")
for f in q:lines() do print(f .. (defs[f] and defs[f] ~= "" and (" " .. defs[f]) or "")) end
q:close()
