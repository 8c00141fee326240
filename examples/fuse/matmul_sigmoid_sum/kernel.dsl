# sum(sigmoid(x @ W^T + b), dim=1): a GEMM whose epilogue reduces each row of the tile. Phase 1
# zeroes y; phase 2 computes each 128 x 256 tile of the product over all of K on the cube, and the
# vector unit adds the bias row, takes the sigmoid and sums each row of the finished tile, adding
# the tile's [TM] partial sums into y (atomic_add: the tiles of one row block run on several
# cores). The [B, N] product never reaches GM. phases.dsl is the same op as three phases through GM.
kernel matmul_sigmoid_sum(x: gm f32[B, K], linear_weight: gm f32[N, K], linear_bias: gm f32[N]) -> (
        y: gm f32[B, 1]):
    const TM = 128
    const TN = 256
    const TK = 64
    const T = 4096
    yv = view(y, (B,))
    for r in parallel(cdiv(B, T)):
        store(yv[r * T:r * T + T], 0.0)
    for i, j in parallel(cdiv(B, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(linear_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(linear_weight[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        atomic_add(yv[m:m + TM], sum(sigmoid(acc + load(linear_bias[n:n + TN])), axis=1))
