# Max over the middle axis of x[B, N, M]: y[b, m] = max_n x[b, n, m].
# Same layout as sum_dim1: a core owns a 1024-wide column block of one image, streams the
# N rows through UB in [8, 1024] tiles and folds them into a [TM] running max
# (max over axis 0, then element-wise maximum). x is read once.
kernel max_dim1(x: gm f32[B, N, M]) -> (y: gm f32[B, M]):
    const TM = minimum(M, 1024)
    const RN = maximum(1, 8192 // TM)
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        acc = max(load(x[b, 0:RN, m:m + TM]), axis=0)
        for n in range(RN, N, RN):
            acc = maximum(acc, max(load(x[b, n:n + RN, m:m + TM]), axis=0))
        store(y[b, m:m + TM], acc)
