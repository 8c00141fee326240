# 3-D max pooling with padding as 2-D windows of depth slices: each output slice od is the
# maximum over the kernel's depth of the 2-D windows (rows and columns) of input slices
# S * od - P + kd. A slice is loaded with its row and column halo in one padded copy (-inf
# outside the image: max pooling's padding), and a slice past the depth's ends is clamped to
# the nearest one, which the same window holds anyway, so it changes no maximum. The parallel
# loop covers (image, channel, block of TH output rows); each block walks the output depth.
# A depth slice is read by the K / S windows that hold it: from L2 after its first read.
kernel max_pool3d(x: gm f32[N, C, D, H, W], kernel_size: i32, stride: i32, padding: i32) -> (
        y: gm f32[N, C, DO, HO, WO]):
    const DO = (D + 2 * padding - kernel_size) // stride + 1
    const HO = (H + 2 * padding - kernel_size) // stride + 1
    const WO = (W + 2 * padding - kernel_size) // stride + 1
    const TH = minimum(HO, maximum(1, 4096 // (((WO - 1) * stride + kernel_size) * stride)))
    const IH = (TH - 1) * stride + kernel_size
    const IW = (WO - 1) * stride + kernel_size
    for n, c, hb in parallel(N, C, cdiv(HO, TH)):
        h = hb * TH
        hi = h * stride - padding
        for od in range(DO):
            d0 = od * stride - padding
            acc = window_max(load(x[n, c, minimum(maximum(d0, 0), D - 1), hi:hi + IH, 0 - padding:W + padding],
                                  pad=-inf), kernel=(kernel_size, kernel_size), stride=(stride, stride))
            for kd in range(1, kernel_size):
                d = minimum(maximum(d0 + kd, 0), D - 1)
                t = load(x[n, c, d, hi:hi + IH, 0 - padding:W + padding], pad=-inf)
                acc = maximum(acc, window_max(t, kernel=(kernel_size, kernel_size), stride=(stride, stride)))
            store(y[n, c, od, h:h + TH, :], acc)
