# C = A @ B on the cube unit. Each iteration owns one 128 x 256 output tile (the parallel loop
# runs over all (row block, column block) pairs) and walks K in 64-deep steps: a [128, 64] block
# of A (32 KiB) and a [64, 256] block of B (64 KiB, all of L0B in f32) go to L1 and their product
# is accumulated in L0C (c = c + matmul(...); 128 x 256 f32 is all 128 KiB of L0C); the finished
# tile is stored once. The accumulator starts from the first K step so it has the tile's exact
# (edge) shape. Lowering turns the phase into one Matmul API call per cube core with this tile
# as the base block (docs/lowering.md, "Cube phases").
kernel matmul(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, K, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], acc)
