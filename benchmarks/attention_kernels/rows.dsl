# Scaled dot-product attention over whole rows of scores: each core takes row blocks of TM queries,
# their scores against every key in one product ([TM, S] in UB: S up to 512 at TM = 64, 128 KiB),
# the softmax on chip (each step written over the tile it reads last, so one tile is live), then the
# probabilities times v stored straight to o (from the cube to GM: no UB). No score tensor in GM (a
# per-core workspace slot in L2 takes the probabilities to the cube).
kernel sdpa_rows(q: gm f32[B, H, S, D], k: gm f32[B, H, S, D], v: gm f32[B, H, S, D]) -> (
        o: gm f32[B, H, S, D]):
    const TM = 64
    for b, h, i in parallel(B, H, cdiv(S, TM)):
        m = i * TM
        t = matmul(q[b, h, m:m + TM, :], k[b, h, :, :], transpose_b=True) * (1.0 / sqrt(D * 1.0))
        mx = max(t, axis=1, keepdims=True)
        e = exp(t - mx)
        l = sum(e, axis=1, keepdims=True)
        p = e / l
        store(o[b, h, m:m + TM, :], matmul(p, v[b, h, :, :]))
