# Row standardisation with a per-feature scale and bias: per-row reductions kept as [R, 1]
# columns, and [R, C] tiles combined with [R, 1] column and [C] row vectors.
kernel rownorm(x: gm f32[R, F], scale: gm f32[F], bias: gm f32[F]) -> (y: gm f32[R, F]):
    const RB = 8
    for rb in parallel(cdiv(R, RB)):
        r = rb * RB
        t = load(x[r:r + RB, :])
        mu = sum(t, axis=1, keepdims=True) * (1.0 / F)
        d = t - mu
        sd = sqrt(sum(d * d, axis=1, keepdims=True) * (1.0 / (F - 1)))
        store(y[r:r + RB, :], d / sd * load(scale) + load(bias))
