# A depthwise convolution (one KH x KW filter per channel, stride 1) on the vector units: each
# (image, channel, block of TH output rows) accumulates its KH * KW taps, each tap one padded load
# of the [TH, OW] input window it weights (pad=0.0 outside the image: the convolution's padding)
# times the tap's weight, read once as a one-value tile (a scalar). The KH * KW loads of a block
# overlap: after the first they come from L2. TH * OW is about 8192 values (MKB: 16 rows of 510).
kernel conv_depthwise_2d(x: gm f32[N, C, H, W], conv2d_weight: gm f32[C, 1, KH, KW], padding: i32) -> (
        y: gm f32[N, C, OH, OW]):
    const TH = maximum(1, 8192 // OW)
    for n, c, hb in parallel(N, C, cdiv(OH, TH)):
        h = hb * TH
        acc = zeros((TH, OW), f32)
        for kh in range(KH):
            for kw in range(KW):
                r = h + kh - padding
                q = kw - padding
                acc = acc + load(x[n, c, r:r + TH, q:q + OW], pad=0.0) * load(conv2d_weight[c, 0, kh, kw])
        store(y[n, c, h:h + TH, :], acc)
