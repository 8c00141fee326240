# relu(x @ W^T + bias), W in nn.Linear layout [out, in] (read transposed by the cube), written as
# two phases through GM: the form kernel.dsl fuses, kept to measure what the fusion saves
# (benchmarks/fused_bench.py):
#   phase 1 (cube): 128 x 256 output tiles, K in 64-deep steps through L1 into an L0C
#            accumulator, each finished tile stored to y (lowered to the Matmul API);
#   phase 2 (vector): y = relu(y + bias) in place, [RB, TW] tiles of up to 8192 elements,
#            the bias row loaded once per tile and broadcast over its rows.
# The epilogue re-reads y once (32 MiB at the MKB shape, against 137 GFLOP of cube work).
kernel matmul_bias_relu(x: gm f32[M, K], gemm_weight: gm f32[N, K], bias: gm f32[N]) -> (
        y: gm f32[M, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    const TW = minimum(N, 8192)
    const RB = maximum(1, 8192 // TW)
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(gemm_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(gemm_weight[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        store(y[m:m + TM, n:n + TN], acc)
    for rb, cb in parallel(cdiv(M, RB), cdiv(N, TW)):
        r = rb * RB
        c = cb * TW
        store(y[r:r + RB, c:c + TW], relu(load(y[r:r + RB, c:c + TW]) + load(bias[c:c + TW])))
