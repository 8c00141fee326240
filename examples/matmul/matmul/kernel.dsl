# C = A @ B on the cube unit. Each cube core owns 128 x 128 output tiles (the parallel
# loop runs over all (row block, column block) pairs: 16 x 32 = 512 at the MKB shape, on
# 24 cube cores). For an output tile it walks K in 128-deep steps: a [128, 128] block of A
# and of B go to L1 (64 KiB each, the most L0A/L0B take in f32) and their product is
# accumulated in L0C (c = c + matmul(...), 64 KiB); the finished tile is stored once.
# The accumulator starts from the first K step so it has the tile's exact (edge) shape.
kernel matmul(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N]):
    const TM = 128
    const TN = 128
    const TK = 128
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, K, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], acc)
