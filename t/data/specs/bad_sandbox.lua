local f = io.open("/etc/passwd")
return problem { source = "k.cu", op = "relu", sizes = { N = 4 }, launch = "k<<<1, 32>>>(y, x, N)" }
