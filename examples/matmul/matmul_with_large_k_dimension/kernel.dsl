# C = A @ B with a small C (256 x 256 at the MKB shapes) and a huge K (524288): 1 GiB of operands
# for 256 KiB of output. Each iteration owns one 128 x 256 tile of C (the cube's fp32 base block)
# and walks K in 64-deep steps: a [128, 64] block of A and a [64, 256] block of B (32 and 64 KiB,
# within L0A and L0B in f32) go to L1 and their product accumulates in L0C (128 KiB); the tile is
# stored once. The product is written over all of K: at the real shapes the lowering cuts C into
# 2 x 1 blocks of 128 x 256 and K into 12 slices, one (block, slice) per cube core, zeroes C and
# adds each slice's product into it (docs/dsl.md, "Cube (matmul)"). Whole-K blocks on all 24
# cores would be 64 x 48 each, streaming 112 operand rows per K step for 3,072 MACs: 1,838 us
# modeled with 64 x 64 x 256 tiles, against 929 us split. Lowering makes each (block, slice)
# one Matmul API call (docs/lowering.md, "Cube phases").
kernel matmul_with_large_k_dimension(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N]):
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
