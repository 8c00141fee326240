# Nearest-neighbour upsampling by an integer factor S: y[n, c, h * S + s, w] = x[n, c, h, w // S].
# One image per iteration (MKB: 32 x 32, 4 KiB in): its rows are loaded whole, each widened by one
# gather along the rows (source column floor((w + 0.5) / S), exact in f32 for every w), and the
# widened [H, OW] block is stored S times, as the rows h * S + s of y: y viewed as [N, C, H, S, OW]
# makes each of them one region (rows S * OW apart). x is read once and y written once.
kernel nearest_neighbor_upsample(x: gm f32[N, C, H, W]) -> (y: gm f32[N, C, OH, OW]):
    const S = 4                       # the op's scale_factor
    const OH = H * S
    const OW = W * S
    yv = view(y, (N, C, H, S, OW))
    for n, c in parallel(N, C):
        src = cast(floor((iota(OW, f32) + 0.5) * (1.0 / S)), i32)
        idx = zeros((H, OW), i32) + src
        wide = gather(load(x[n, c, :, :]), idx, axis=1)
        for s in range(S):
            store(yv[n, c, :, s, :], wide)
