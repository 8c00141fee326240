# C = A @ B with a small C (256 x 256 at the MKB shapes) and a huge K (524288): 1 GiB of operands
# for 256 KiB of output. Each iteration owns one 64 x 64 tile of C and walks K in 256-deep steps:
# a [64, 256] block of A and a [256, 64] block of B (64 KiB each, all of L0A and of L0B in f32)
# go to L1 and their product accumulates in L0C (64 x 64 f32, 16 KiB); the tile is stored once.
# Why these sizes: the lowering spreads C over the 24 cube cores as a 4 x 6 grid of 64 x 48
# blocks, each walking the whole K, so every core streams (64 + 48) operand rows per K step and
# the kernel is bound by that stream, not by the cube. A 64 x 64 base block covers a core's
# block in one piece (a 128 x 256 one would be clipped to it anyway), and the deepest K step
# L0A/L0B allow (256) quarters the per-step copy and sync overhead of 64-deep steps (3,491 ->
# 1,838 us modeled). Splitting K over the cores (partials in a scratch, summed by a second
# phase) would cut the stream about 3x but does not lower yet (the Matmul lowering needs each
# product to start at K = 0). Lowering makes it one Matmul API call per cube core on a grid
# chosen at the real shapes (docs/lowering.md, "Cube phases").
kernel matmul_with_large_k_dimension(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N]):
    const TM = 64
    const TN = 64
    const TK = 256
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, K, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], acc)
