# A depthwise convolution (one KH x KW filter per channel, stride 1) on the vector units: each
# (image, channel, block of TH output rows) reads its filter once (a [KH, KW] tile whose elements
# are scalars), then per kernel column kw loads the TH + KH - 1 input rows the block reads, from
# column kw on (pad=0.0 outside the image: the convolution's padding), and adds each kernel row's
# tap: rows kh.. of that tile, whole rows (one run of the tile's memory: no gather), times the
# tap's weight. KW loads per block instead of KH * KW, and no GM read per tap. TH * OW is about
# 8192 values (MKB: 16 rows of 510).
kernel conv_depthwise_2d(x: gm f32[N, C, H, W], conv2d_weight: gm f32[C, 1, KH, KW], padding: i32) -> (
        y: gm f32[N, C, OH, OW]):
    const OH = H + 2 * padding - KH + 1
    const OW = W + 2 * padding - KW + 1
    const TH = maximum(1, 8192 // OW)
    for n, c, hb in parallel(N, C, cdiv(OH, TH)):
        h = hb * TH
        wt = load(conv2d_weight[c, 0, :, :])
        acc = zeros((TH, OW), f32)
        for kw in range(KW):
            q = kw - padding
            t = load(x[n, c, h - padding:h - padding + TH + KH - 1, q:q + OW], pad=0.0)
            for kh in range(KH):
                acc = acc + t[kh:kh + TH, :] * wt[kh, kw]
        store(y[n, c, h:h + TH, :], acc)
