# sum(sigmoid(x @ W^T + b), dim=1) as phases through GM, the form kernel.dsl fuses (kept to measure
# what the fusion saves, benchmarks/fused_bench.py): the product into a scratch [B, N] on the cube,
# then per row the sum of sigmoid(h + b) over chunks of T columns on the vector units.
kernel matmul_sigmoid_sum(x: gm f32[B, K], linear_weight: gm f32[N, K], linear_bias: gm f32[N]) -> (
        y: gm f32[B, 1]):
    const TM = 128
    const TN = 256
    const TK = 64
    const T = 8192
    scratch h: f32[B, N]
    for i, j in parallel(cdiv(B, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(linear_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(linear_weight[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        store(h[m:m + TM, n:n + TN], acc)
    for b in parallel(B):
        s = 0.0
        for c in range(0, N, T):
            s = s + sum(sigmoid(load(h[b, c:c + T]) + load(linear_bias[c:c + T])))
        store(y[b, 0], s)
