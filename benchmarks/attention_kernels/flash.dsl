# Scaled dot-product attention as flash attention: each core takes row blocks of TM queries and walks
# the keys in TN-column tiles, keeping each row's running maximum and sum and rescaling the
# accumulated output by exp(old max - new max) at each tile (the first tile peeled: its values start
# them). No score tensor in GM: the probabilities of a tile reach the cube through a per-core
# workspace slot in L2, and the cube computes the next tile's scores while the vector unit works on
# this one. The accumulator is TM x D f32 in UB: D up to a few hundred.
kernel flash_attention(q: gm f32[B, H, S, D], k: gm f32[B, H, S, D], v: gm f32[B, H, S, D]) -> (
        o: gm f32[B, H, S, D]):
    const TM = 64
    const TN = 128
    for b, h, i in parallel(B, H, cdiv(S, TM)):
        m = i * TM
        c = 1.0 / sqrt(D * 1.0)
        t = matmul(q[b, h, m:m + TM, :], k[b, h, 0:TN, :], transpose_b=True) * c
        mx = max(t, axis=1, keepdims=True)
        p = exp(t - mx)
        l = sum(p, axis=1, keepdims=True)
        acc = matmul(p, v[b, h, 0:TN, :])
        for n in range(TN, S, TN):
            t = matmul(q[b, h, m:m + TM, :], k[b, h, n:n + TN, :], transpose_b=True) * c
            mn = maximum(mx, max(t, axis=1, keepdims=True))
            p = exp(t - mn)
            alpha = exp(mx - mn)
            l = l * alpha + sum(p, axis=1, keepdims=True)
            acc = acc * alpha + matmul(p, v[b, h, n:n + TN, :])
            mx = mn
        store(o[b, h, m:m + TM, :], acc / l)
