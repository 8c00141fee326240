# Scaled dot-product attention over whole rows of scores: each core takes row blocks of TM queries,
# their scores against every key in one product ([TM, S] in UB: S up to 512 at TM = 32), the
# softmax on chip, then the probabilities times v in TD-column tiles stored straight to o. No score
# tensor in GM (a per-core workspace slot in L2 takes the probabilities to the cube).
kernel sdpa_rows(q: gm f32[B, H, S, D], k: gm f32[B, H, S, D], v: gm f32[B, H, S, D]) -> (
        o: gm f32[B, H, S, D]):
    const TM = 32
    const TD = 256
    for b, h, i in parallel(B, H, cdiv(S, TM)):
        m = i * TM
        t = matmul(q[b, h, m:m + TM, :], k[b, h, :, :], transpose_b=True) * (1.0 / sqrt(D * 1.0))
        e = exp(t - max(t, axis=1, keepdims=True))
        p = e / sum(e, axis=1, keepdims=True)
        for d in range(0, D, TD):
            store(o[b, h, m:m + TM, d:d + TD], matmul(p, v[b, h, :, d:d + TD]))
