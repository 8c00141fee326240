# 3-D average pooling with padding (counted in every average, torch's default) as 2-D windows of
# depth slices: each output slice od is the sum over the kernel's depth of the 2-D window means
# (rows and columns) of input slices S * od - P + kd, divided by the kernel's depth. A slice is
# loaded with its row and column halo in one padded copy (zeros outside the image: the padding's
# part of the mean), and the depth loop runs over the slices inside the input only (a slice of
# the depth padding adds zero: it is left out, not multiplied by zero, which an infinity in a
# clamped slice would turn into NaN). The parallel loop covers (image, channel, block of TH output
# rows); each block walks the output depth. A depth slice is read by the K / S windows that hold
# it: from L2 after its first read.
kernel avg_pool3d(x: gm f32[N, C, D, H, W], kernel_size: i32, stride: i32, padding: i32) -> (
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
            d1 = maximum(od * stride - padding, 0)                # the window's first slice inside
            acc = window_avg(load(x[n, c, d1, hi:hi + IH, 0 - padding:W + padding], pad=0.0),
                             kernel=(kernel_size, kernel_size), stride=(stride, stride))
            for d in range(d1 + 1, minimum(od * stride - padding + kernel_size, D)):
                t = load(x[n, c, d, hi:hi + IH, 0 - padding:W + padding], pad=0.0)
                acc = acc + window_avg(t, kernel=(kernel_size, kernel_size), stride=(stride, stride))
            store(y[n, c, od, h:h + TH, :], acc * (1.0 / kernel_size))
