-- differential: what a plain differential test does (KernelBench's harness:
-- torch.randn inputs at the problem's fixed shapes, every output compared):
-- the spec's sizes, normal values, a new draw each case. bench/mutants.sh
-- uses it to find the mutants such a test lets through.
return strategy "differential" {
  help = "the spec's sizes and normal values, a fresh draw each case (a plain differential test)",
  gen = function(space, k, rng)
    return { sizes = {}, values = "normal" }
  end,
}
