# C[b, i] = A[b, i] @ B for every (b, i): a batch of [J, L] matrices times one [L, K] matrix on
# the cube unit. The two batch axes are parallel axes of the phase; B carries none, so every
# product reads the same B (from L2 after its first pass). Each iteration owns one 128 x 128 tile
# of one product and walks L in 64-deep steps through L1 into an L0C accumulator, then stores the
# tile once. With L = 256 each tile is only 4 K steps deep, so draining L0C to GM costs as much
# as filling it: a 128 x 128 f32 tile is 64 KiB, half of L0C, so the Matmul API double-buffers
# L0C (the cube fills one block while the other is written out), which a 128 x 256 tile (all
# 128 KiB) cannot. Lowering spreads the (batch, block) work items evenly over the cube cores as
# Matmul API calls (docs/lowering.md, "Cube phases").
kernel four_dim_tensor_matrix_multiplication(a: gm f32[NB, NI, J, L], b: gm f32[L, KO]) -> (
        c: gm f32[NB, NI, J, KO]):
    const TM = 128
    const TN = 128
    const TK = 64
    for x, y, i, j in parallel(NB, NI, cdiv(J, TM), cdiv(KO, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[x, y, m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, L, TK):
            ta = load(a[x, y, m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[x, y, m:m + TM, n:n + TN], acc)
