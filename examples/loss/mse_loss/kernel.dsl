# Mean squared error over all elements, in two phases:
#   phase 1: the input is cut into [RB, TW] tiles of at most T elements (TW = min(N, T)
#            columns; RB = T // TW whole rows when rows are short), the tiles are numbered
#            f = row block * NT + column block, and the U tiles are split into CORES equal
#            contiguous ranges, so every core does the same work whatever B and N are;
#            each core sums (p - t)^2 over its tiles into one scratch slot;
#   phase 2: one core adds the CORES partials and divides by B * N.
# Each input element is read once.
kernel mse_loss(p: gm f32[B, N], t: gm f32[B, N]) -> (loss: gm f32[]):
    const T = 8192
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    const NT = cdiv(N, TW)
    const U = cdiv(B, RB) * NT
    scratch part: f32[CORES]
    for c in parallel(CORES):
        acc = 0.0
        for f in range(c * U // CORES, (c + 1) * U // CORES):
            r = f // NT * RB
            j = f % NT * TW
            d = load(p[r:r + RB, j:j + TW]) - load(t[r:r + RB, j:j + TW])
            acc = acc + sum(d * d)
        store(part[c], acc)
    store(loss, sum(load(part)) / (B * N))
