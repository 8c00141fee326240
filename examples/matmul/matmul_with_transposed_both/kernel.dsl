# C = A^T @ B^T with A stored [K, M] and B stored [N, K], both read in place: the cube takes each
# operand transposed (transpose_a / transpose_b), so no transposing copy is made. Each iteration
# owns one 128 x 256 tile of C and walks K in 64-deep steps: a [64, 128] block of A (32 KiB) and
# a [256, 64] block of B (64 KiB, all of L0B in f32) go to L1 and their product accumulates in
# L0C (128 x 256 f32, all 128 KiB); the tile is stored once. Lowering makes it one Matmul API
# call per cube core on a grid chosen at the real shapes (docs/lowering.md, "Cube phases").
kernel matmul_with_transposed_both(a: gm f32[K, M], b: gm f32[N, K]) -> (c: gm f32[M, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[0:TK, m:m + TM], space=l1)
        acc = matmul(ta, load(b[n:n + TN, 0:TK], space=l1), transpose_a=True, transpose_b=True)
        for k in range(TK, K, TK):
            ta = load(a[k:k + TK, m:m + TM], space=l1)
            acc = acc + matmul(ta, load(b[n:n + TN, k:k + TK], space=l1), transpose_a=True, transpose_b=True)
        store(c[m:m + TM, n:n + TN], acc)
