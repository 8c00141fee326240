# C = A^T @ B with A stored [K, M], read in place: the cube takes A transposed (transpose_a), so
# no transposing copy of A is made. Each iteration owns one 256 x 128 tile of C (the parallel
# loop runs over all (row block, column block) pairs) and walks K in 64-deep steps: a [64, 256]
# block of A (64 KiB, all of L0A in f32) and a [64, 128] block of B (32 KiB) go to L1 and their
# product accumulates in L0C (256 x 128 f32 is all 128 KiB of L0C); the tile is stored once.
# A base block that fills L0C feeds the most MACs per operand byte fetched from L2; at the MKB
# shapes 256 x 128 models 2 % faster than 128 x 256 (1,000 vs 1,021 us; the lowering then picks
# a 3 x 8 grid of 688 x 512 core blocks instead of 4 x 6 of 512 x 688). Lowering makes it one
# Matmul API call per cube core on a grid chosen at the real shapes (docs/lowering.md, "Cube
# phases").
kernel matmul_with_transposed_a(a: gm f32[K, M], b: gm f32[K, N]) -> (c: gm f32[M, N]):
    const TM = 256
    const TN = 128
    const TK = 64
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[0:TK, m:m + TM], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1), transpose_a=True)
        for k in range(TK, K, TK):
            ta = load(a[k:k + TK, m:m + TM], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1), transpose_a=True)
        store(c[m:m + TM, n:n + TN], acc)
