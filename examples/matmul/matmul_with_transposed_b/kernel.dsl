# C = A @ B^T with B stored [N, K], read in place: the cube takes B transposed (transpose_b), so
# no transposing copy of B is made (both operands then stream K-contiguous rows from GM). Each
# iteration owns one 256 x 128 tile of C and walks K in 64-deep steps: a [256, 64] block of A
# (64 KiB, all of L0A in f32) and a [128, 64] block of B (32 KiB) go to L1 and their product
# accumulates in L0C (256 x 128 f32, all 128 KiB); the tile is stored once. A base block that
# fills L0C feeds the most MACs per operand byte from L2; at the MKB shapes 256 x 128 models 2 %
# faster than 128 x 256 (1,000 vs 1,021 us, a 3 x 8 grid of core blocks instead of 4 x 6). Lowering
# makes it one Matmul API call per cube core on a grid chosen at the real shapes
# (docs/lowering.md, "Cube phases").
kernel matmul_with_transposed_b(a: gm f32[M, K], b: gm f32[N, K]) -> (c: gm f32[M, N]):
    const TM = 256
    const TN = 128
    const TK = 64
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        store(c[m:m + TM, n:n + TN], acc)
