# Softmax over rows longer than the UB, in two passes over GM instead of three:
#   pass 1 (online softmax): running max m and running sum s of exp(x - m); when the max
#           grows, the old sum is rescaled by exp(m_old - m_new);
#   pass 2: y = exp(x - m) * (1 / s).
# Rows are spread over the AI cores; each row streams through UB in 8192-element tiles
# (32 KiB f32), the last one shorter.
kernel softmax(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 8192
    for b in parallel(B):
        m = -inf
        s = 0.0
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            m_new = maximum(m, max(t))
            s = s * exp(m - m_new) + sum(exp(t - m_new))
            m = m_new
        r = reciprocal(s)
        for j in range(0, N, T):
            store(y[b, j:j + T], exp(load(x[b, j:j + T]) - m) * r)
