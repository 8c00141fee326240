# C = A @ B for square N x N matrices on the cube unit. Each iteration owns one 256 x 128 tile of
# C (the parallel loop runs over all (row block, column block) pairs) and walks K = N in 64-deep
# steps: a [256, 64] block of A (64 KiB, all of L0A in f32) and a [64, 128] block of B (32 KiB)
# go to L1 and their product accumulates in L0C (256 x 128 f32, all 128 KiB); the tile is
# stored once. At N = 4096 the product does 2 N^3 flops on 3 N^2 floats of traffic, so what
# limits it is the operand stream each core pulls from L2: a base block that fills L0C feeds the
# most MACs per byte streamed. Lowering makes it one Matmul API call per cube core on a grid chosen
# at the real shapes (docs/lowering.md, "Cube phases").
kernel square_matrix_multiplication(a: gm f32[N, N], b: gm f32[N, N]) -> (c: gm f32[N, N]):
    const TM = 256
    const TN = 128
    const TK = 64
    for i, j in parallel(cdiv(N, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, N, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], acc)
