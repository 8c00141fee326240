# Smooth L1 (Huber, beta = 1) loss with mean reduction:
#   l = 0.5 * d^2 / beta if |d| < beta else |d| - 0.5 * beta, with d = p - t; loss = mean(l).
# Branch-free: with q = min(|d|, beta), l = q * (|d| - q / 2) / beta (both cases), so no
# compare/select, and the 1 / beta is applied once to the core's sum.
# The output is zeroed once, then every core adds its share with one atomic_add (no
# scratch, no second phase). Tiles and their split over the cores are as in mse_loss:
# [RB, TW] tiles numbered f and cut into CORES equal contiguous ranges, but of 4096 elements:
# with two inputs and three live temporaries, 16 KiB tiles leave room for double buffering.
kernel huber_loss(p: gm f32[B, N], t: gm f32[B, N], beta: f32 = 1.0) -> (loss: gm f32[]):
    const T = 4096
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    const NT = cdiv(N, TW)
    const U = cdiv(B, RB) * NT
    store(loss, 0.0)
    for c in parallel(CORES):
        acc = 0.0
        for f in range(c * U // CORES, (c + 1) * U // CORES):
            r = f // NT * RB
            j = f % NT * TW
            a = abs(load(p[r:r + RB, j:j + TW]) - load(t[r:r + RB, j:j + TW]))
            q = minimum(a, beta)
            acc = acc + sum(q * (a - q * 0.5))
        atomic_add(loss, acc * (1.0 / (beta * B * N)))
