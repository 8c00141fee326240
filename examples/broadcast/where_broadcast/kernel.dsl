# where(cond, x, y), cond [1, C, 1]: one image's block of CB channels is a [CB, W] tile of x and
# of y, and cond's CB values a [CB, 1] column that broadcasts along W. Blocks hold up to 8192
# elements (at the MKB shape 128 channels of 64: 4 blocks per image, 256 units over 48 cores),
# so every copy is one large DMA and Select runs over whole 32 KiB tiles.
kernel where_broadcast(cond: gm bool[1, C, 1], x: gm f32[N, C, W], y: gm f32[N, C, W]) -> (
        out: gm f32[N, C, W]):
    const CB = maximum(1, minimum(C, 8192 // W))
    for n, cb in parallel(N, cdiv(C, CB)):
        c = cb * CB
        m = load(cond[0, c:c + CB, :])
        store(out[n, c:c + CB, :], where(m, load(x[n, c:c + CB, :]), load(y[n, c:c + CB, :])))
