-- tail-sweep: the innermost size walks through every tail t that does not
-- divide the block size b: first the telling ones (1, b-1, b/2+1, b/2-1), then
-- 2, 3, … b-2. Each tail runs inside one block (t) and after a full block
-- (b + t), with max-last values (the row's maximum sits in the tail), and
-- all-negative values (padding with 0 instead of -inf wins every max) inside
-- one block or large-offset ones after a full block (rows at -10^4: a softmax
-- whose max is padded with 0 is shift-invariant for -1..-5, but every exp
-- underflows at -10^4, 0/0); the other sizes keep the spec's values.
-- Catches masks, padding and tail loops.
local orders = {}
local function tails(b)            -- the order of the tails of b (cached: pure)
  if orders[b] then return orders[b] end
  local list, seen = {}, {}
  local function add(t)
    if t >= 1 and t < b and not seen[t] then list[#list + 1], seen[t] = t, true end
  end
  for _, t in ipairs { 1, b - 1, b // 2 + 1, b // 2 - 1 } do add(t) end
  for t = 2, b - 2 do add(t) end
  orders[b] = list
  return list
end

return strategy "tail-sweep" {
  help = "every non-divisible tail of the block size for the innermost size (max-last, negative, large-offset values)",
  gen = function(space, k, rng)
    local inner = space.inner
    if not inner then return nil end          -- no sizes to move
    local b = space.block[1] or 32
    if b < 2 then b = 32 end
    local list = tails(b)
    local values = k % 2 == 0 and "max-last" or k % 4 == 1 and "negative" or "large-offset"
    local full = (k // 2) % 2                 -- 0: inside one block, 1: after a full block
    for step = 0, #list - 1 do                -- from case k's tail on, the first that fits
      local t = list[(k // 4 + step) % #list + 1]
      for _, m in ipairs { full, 1 - full } do
        local sizes = { [inner] = m * b + t }
        if space:admissible(sizes) then return { sizes = sizes, values = values } end
      end
    end
    return nil                                -- no tail is admissible (constraints, size cap)
  end,
}
