kernel k(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 8192
    for b in parallel(B):
        m = -inf
        for j in range(0, N, T):
            m = maximum(m, max(load(x[b, j:j + T])))
        s = 0.0
        for j in range(0, N, T):
            s = s + sum(exp(load(x[b, j:j + T]) - m))
        for j in range(0, N, T):
            store(y[b, j:j + T], exp(load(x[b, j:j + T]) - m) / s)
