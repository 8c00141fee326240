# where(cond, x, y), cond [1, C, 1]: one image's block of CB channels is a [CB, W] tile of x and
# of y, and cond's CB values a [CB, 1] column that broadcasts along W. Blocks hold up to 4096
# elements (at the MKB shape 64 channels of 64: 8 blocks per image, 512 units over 48 cores),
# so every copy is one 16 KiB DMA and Select runs over whole tiles (8192 would not fit: the mask
# takes f32 and bit-mask copies of the tile's shape).
kernel where_broadcast(cond: gm bool[1, C, 1], x: gm f32[N, C, W], y: gm f32[N, C, W]) -> (
        out: gm f32[N, C, W]):
    const CB = maximum(1, minimum(C, 4096 // W))
    for n, cb in parallel(N, cdiv(C, CB)):
        c = cb * CB
        m = load(cond[0, c:c + CB, :])
        store(out[n, c:c + CB, :], where(m, load(x[n, c:c + CB, :]), load(y[n, c:c + CB, :])))
