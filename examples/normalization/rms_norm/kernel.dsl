# RMS norm over dim 1 of x[B, C, H, W]: y = x * rsqrt(mean_c(x^2) + eps), per (b, h, w).
# The reduction axis is not the last one, so there is no row to reduce: a core owns a
# spatial block [R, TW] of one image (contiguous rows of W when W <= T) and walks the C
# channels twice, accumulating x^2 element-wise into a block-sized tile, then scaling.
# The accumulator starts from channel 0, so it has the block's exact (tail) shape.
# Between the two passes a core touches C * 16 KiB (1 MiB at the MKB shape, 48 MiB for all
# cores), which stays in the 192 MiB L2: the second read costs little HBM traffic.
kernel rms_norm(x: gm f32[B, C, H, W], eps: f32 = 1e-5) -> (y: gm f32[B, C, H, W]):
    const T = 4096
    const TW = minimum(W, T)
    const R = maximum(1, T // TW)
    for b, hb, wb in parallel(B, cdiv(H, R), cdiv(W, TW)):
        h = hb * R
        w = wb * TW
        t0 = load(x[b, 0, h:h + R, w:w + TW])
        acc = t0 * t0
        for c in range(1, C):
            t = load(x[b, c, h:h + R, w:w + TW])
            acc = acc + t * t
        scale = rsqrt(acc * (1.0 / C) + eps)
        for c in range(C):
            store(y[b, c, h:h + R, w:w + TW], load(x[b, c, h:h + R, w:w + TW]) * scale)
