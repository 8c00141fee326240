# LeakyReLU, element-wise. negative_slope is bound from Model.__init__ (default 0.01).
# Tiles are [RB, TW] blocks of at most T elements: TW = min(N, T) columns and, when rows
# are short, RB = T // TW whole rows, so every tile is one big contiguous copy whatever the
# row length (393216-long rows: 1 x 8192 tiles; 2048-long rows: 4 x 2048 tiles).
# The parallel loop runs over all (row block, column block) pairs, so all cores get an
# equal share: 4096 * 48 tiles at the MKB shape. One load and one store per element.
kernel leaky_relu(x: gm f32[B, N], negative_slope: f32 = 0.01) -> (y: gm f32[B, N]):
    const T = 8192
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(B, RB), cdiv(N, TW)):
        r = rb * RB
        c = cb * TW
        t = load(x[r:r + RB, c:c + TW])
        store(y[r:r + RB, c:c + TW], where(t >= 0.0, t, t * negative_slope))
