-- Prints the markdown table of doc/samples.md from the specs (lua5.4 t/lua/sample_index.lua).
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/?.lua;" .. package.path
local L = require("oplib")
local function readfile(p) local f = io.open(p, "rb"); if not f then return nil end; local s = f:read("a"); f:close(); return s end
local rows = {}
for _, rel in ipairs(L.sample_specs()) do
  local spec
  local env = { problem = function(t) return t end }
  if rel:match("%.lua$") then spec = loadfile(L.root .. "/" .. rel, "t", env)()
  else
    local body = (readfile(L.root .. "/" .. rel) or ""):match("^%s*/%*%s*dirigo:(.-)%*/")
    if body then spec = load("return problem {" .. body .. "}", "=" .. rel, "t", env)(); spec.source = rel:match("[^/]*$") end
  end
  if spec then
    local dir = rel:match("^(.*)/[^/]*$")
    local src = readfile(L.root .. "/" .. dir .. "/" .. spec.source) or ""
    src = src:gsub("^%s*/%*.-%*/%s*", "")
    local lines = {}
    for line in src:gmatch("[^\n]*") do
      local c = line:match("^//%s*(.*)$")
      if not c then break end
      lines[#lines + 1] = c
    end
    local what = table.concat(lines, " ")
    local sizes = {}
    for k, v in pairs(spec.sizes or {}) do sizes[#sizes + 1] = k .. "=" .. v end
    table.sort(sizes)
    local status, why
    if spec.seeded_bug then status = "**" .. spec.seeded_bug.pattern .. "**"; why = spec.seeded_bug.detail
    else status = "correct"; why = what end
    rows[#rows + 1] = ("| `%s/%s` | %s | %s | %s | %s | %s |"):format(dir, spec.source, spec.op, dir:match("[^/]*$"), status,
      table.concat(sizes, " "), (why:gsub("|", "\\|")))
  end
end
print("| source | op | kind | status | spec sizes | what it is / what triggers the bug |")
print("| --- | --- | --- | --- | --- | --- |")
for _, r in ipairs(rows) do print(r) end
