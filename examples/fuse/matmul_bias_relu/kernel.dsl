# relu(x @ W^T + bias), W in nn.Linear layout [out, in] (read transposed by the cube), the epilogue
# fused into the product: each iteration computes one 128 x 256 tile of y over all of K (64-deep
# steps through L1 into an L0C accumulator) and the vector unit adds the bias row to the finished
# tile and clamps it before the one store of y. The lowering hands each tile from the cube to UB
# (the Matmul API's Iterate and GetTensorC, through an L2-resident workspace), so y crosses HBM
# once; the epilogue runs in place on the 128 KiB tile. phases.dsl is the same op as two phases
# through GM.
kernel matmul_bias_relu(x: gm f32[M, K], gemm_weight: gm f32[N, K], bias: gm f32[N]) -> (
        y: gm f32[M, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(gemm_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(gemm_weight[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        store(y[m:m + TM, n:n + TN], relu(acc + load(bias[n:n + TN])))
