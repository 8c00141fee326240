# C[z] = A[z] @ B[z] for every batch index z on the cube unit. The batch index is one more
# parallel axis: each iteration owns one 128 x 256 tile of one product and walks K in 64-deep
# steps through L1 ([128, 64] of A, 32 KiB; [64, 256] of B, 64 KiB, all of L0B in f32) into an
# L0C accumulator (128 x 256 f32, all 128 KiB), then stores the tile once. Lowering turns the
# phase into Matmul API calls over (batch, block) work items spread evenly over the cube cores,
# batch-major so that a core's consecutive items share a batch (docs/lowering.md, "Cube phases").
kernel batched_matrix_multiplication(a: gm f32[BS, M, K], b: gm f32[BS, K, N]) -> (c: gm f32[BS, M, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    for z, i, j in parallel(BS, cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[z, m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[z, 0:TK, n:n + TN], space=l1))
        for k in range(TK, K, TK):
            ta = load(a[z, m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[z, k:k + TK, n:n + TN], space=l1))
        store(c[z, m:m + TM, n:n + TN], acc)
