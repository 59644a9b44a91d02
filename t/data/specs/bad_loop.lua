local n = 0
while true do n = n + 1 end
return problem { source = "k.cu", op = "relu", sizes = { N = 4 }, launch = "k<<<1, 32>>>(y, x, N)" }
