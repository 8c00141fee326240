# log_softmax over rows longer than the UB: y = x - (m + log(s)), with m the row max and
# s = sum(exp(x - m)). Two passes over GM: one online pass computes m and s together
# (rescaling s by exp(m_old - m_new) when the max grows), one pass writes y.
# One row per iteration of the core-parallel loop; 8192-element f32 tiles (32 KiB).
kernel log_softmax(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 8192
    for b in parallel(B):
        m = -inf
        s = 0.0
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            m_new = maximum(m, max(t))
            s = s * exp(m - m_new) + sum(exp(t - m_new))
            m = m_new
        lse = m + log(s)
        for j in range(0, N, T):
            store(y[b, j:j + T], load(x[b, j:j + T]) - lse)
