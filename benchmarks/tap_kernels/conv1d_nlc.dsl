# A 1-D convolution (stride 1, no padding, no bias) over a channel-last sequence x[N, L, CI] as tap
# products: each [TM, TN] tile of y is the sum over the KW taps of wt[t]'s [TM, CI] rows times the
# [TN, CI] block of x that the tap shifts by t, accumulated in L0C on the cube cores (no im2col).
kernel conv1d_nlc(x: gm f32[N, L, CI], wt: gm f32[KW, CO, CI]) -> (y: gm f32[N, CO, LO]):
    const TM = 128
    const TN = 128
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(LO, TN)):
        m = i * TM
        q = j * TN
        a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)
        acc = matmul(a, load(x[n, q:q + TN, :], space=l1, pad=0.0), transpose_b=True)
        for t in range(1, KW):
            a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)
            acc = acc + matmul(a, load(x[n, q + t:q + t + TN, :], space=l1, pad=0.0), transpose_b=True)
        store(y[n, m:m + TM, q:q + TN], acc)
