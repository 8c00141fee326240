# x / scale[c] over NCHW, scale [C, 1, 1]: each (image, channel) plane's divisor is one value,
# loaded once per work unit as a one-element tile (the lowering takes its reciprocal on the
# scalar unit and scales the tile with one Muls: no broadcast tile). Work unit: HB rows of one
# plane, HB * W ~ T elements with T = total / CORES clamped to [1024, 8192], so small tensors
# still use every core and large ones get 32 KiB tiles; x is read once. At the MKB shape (24
# planes of 32 x 128) that is 48 half-planes of 16 x 128 (8 KiB), one per core.
kernel division_broadcast(x: gm f32[N, C, H, W], scale: gm f32[C, 1, 1]) -> (y: gm f32[N, C, H, W]):
    const T = maximum(1024, minimum(8192, cdiv(N * C * H * W, CORES)))
    const HB = maximum(1, minimum(H, T // W))
    for n, c, hb in parallel(N, C, cdiv(H, HB)):
        h = hb * HB
        store(y[n, c, h:h + HB, :], load(x[n, c, h:h + HB, :]) / load(scale[c]))
