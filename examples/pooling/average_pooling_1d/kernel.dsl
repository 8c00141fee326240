# 1-D average pooling (padding counted, as nn.AvgPool1d's default count_include_pad=True);
# kernel_size, stride and padding are bound from Model.__init__ (MKB: k8 s1 p4).
# A tile is [RC, IL]: RC channels of one image times IL input positions (TL outputs plus
# the halo), about 4096 input values (16 KiB: pooling's work area and Gather tables need
# room too). Long rows (MKB: 65536) give RC = 1 and 4096-output tiles; short rows are batched RC channels at a time so tiles stay big. The halo comes
# from one padded load (zeros outside the row, which is what counted padding adds), so
# window_avg needs no padding; at the row end and past the last channel only the
# in-tensor part of the result is written.
kernel avg_pool1d(x: gm f32[N, C, L], kernel_size: i32, stride: i32 = 1, padding: i32 = 0) -> (
        y: gm f32[N, C, LO]):
    const LO = (L + 2 * padding - kernel_size) // stride + 1
    const TL = minimum(LO, maximum(1, 4096 // stride))
    const IL = (TL - 1) * stride + kernel_size
    const RC = maximum(1, 4096 // IL)
    for n, cb, lb in parallel(N, cdiv(C, RC), cdiv(LO, TL)):
        c = cb * RC
        l = lb * TL
        li = l * stride - padding
        t = load(x[n, c:c + RC, li:li + IL], pad=0.0)
        store(y[n, c:c + RC, l:l + TL], window_avg(t, kernel=(kernel_size,), stride=(stride,)))
