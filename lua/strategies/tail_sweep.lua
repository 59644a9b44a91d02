-- tail-sweep: the innermost size walks through every tail that does not
-- divide the block size (1, b-1, 2, b-2, … — both ends first), first inside
-- one block, then after a full one; the other sizes keep the spec's values.
-- Even cases fill the inputs with max-last values (the row's maximum sits in
-- the tail), odd ones with all-negative values (padding with 0 instead of
-- -inf wins every max). Catches masks, padding and tail loops.
return strategy "tail-sweep" {
  help = "every non-divisible tail of the block size for the innermost size (max-last, negative values)",
  gen = function(space, k, rng)
    local inner = space.inner
    if not inner then return nil end          -- no sizes to move
    local b = space.block[1] or 32
    if b < 2 then b = 32 end
    local ntails = b - 1
    local values = k % 2 == 0 and "max-last" or "negative"
    local full = (k // (2 * ntails)) % 2      -- 0: inside one block, 1: after one full block
    for step = 0, ntails - 1 do
      local j = (k // 2 + step) % ntails
      local t = j % 2 == 0 and j // 2 + 1 or b - 1 - j // 2
      for _, m in ipairs { full, 1 - full } do
        local sizes = { [inner] = m * b + t }
        if space:admissible(sizes) then return { sizes = sizes, values = values } end
      end
    end
    return nil                                -- no tail is admissible (constraints, size cap)
  end,
}
