# The rownorm op as a loop of phases: per group of G rows, phase 1 writes each row's mean and
# 1/std to scratch, phase 2 (after a SyncAll) normalises the group's rows from them.
kernel rownorm_groups(x: gm f32[R, F], scale: gm f32[F], bias: gm f32[F]) -> (y: gm f32[R, F]):
    const G = 16
    scratch mu: f32[R]
    scratch rstd: f32[R]
    for g in range(0, R, G):
        for i in parallel(minimum(G, R - g)):
            t = load(x[g + i, :])
            m = sum(t) * (1.0 / F)
            d = t - m
            store(mu[g + i], m)
            store(rstd[g + i], rsqrt(sum(d * d) * (1.0 / (F - 1))))
        for i in parallel(minimum(G, R - g)):
            r = g + i
            t = (load(x[r, :]) - load(mu[r])) * load(rstd[r])
            store(y[r, :], t * load(scale) + load(bias))
