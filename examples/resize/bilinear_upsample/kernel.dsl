# Bilinear upsampling by an integer factor S (align_corners=False): output pixel (oh, ow) reads the
# source position ((oh + 0.5) / S - 0.5, (ow + 0.5) / S - 0.5), clamped at 0, between its two
# neighbours on each axis (the second one clamped to the last row or column).
# One block of TR output rows of an image per iteration (MKB: 32 rows of 128 from 18 input rows of
# 64): the input rows the block reads are loaded once (a fixed RB rows, padded past the image); the
# width pass gathers each row's left and right neighbours of every output column (two gathers along
# the rows, by index tiles made with iota) and blends them; the height pass blends, for each output
# row, two rows of that wide tile, its neighbours worked out on the scalar unit in integers (the
# position times 2S is the integer 2 * oh + 1 - S), so the weights are exact. Each blend is
# (1 - l) * a + l * b, as torch weighs (a + (b - a) * l would give NaN where a is infinite).
kernel bilinear_upsample(x: gm f32[N, C, H, W]) -> (y: gm f32[N, C, OH, OW]):
    const S = 2                       # the op's scale_factor
    const OH = H * S
    const OW = W * S
    const S2 = 2 * S
    const TR = 32
    const RB = TR // S + 2          # input rows a block of TR output rows reads, at most
    for n, c, ob in parallel(N, C, cdiv(OH, TR)):
        oh0 = ob * TR
        r0 = maximum(2 * oh0 + 1 - S, 0) // S2
        src = maximum((iota(OW, f32) + 0.5) * (1.0 / S) - 0.5, 0.0)
        x0 = cast(floor(src), i32)
        lx = src - cast(x0, f32)
        x1 = minimum(x0 + 1, W - 1)
        rows = load(x[n, c, r0:r0 + RB, :], pad=0.0)     # RB rows: past the image, unused zeros
        left = gather(rows, zeros((RB, OW), i32) + x0, axis=1)
        right = gather(rows, zeros((RB, OW), i32) + x1, axis=1)
        wide = left * (1.0 - lx) + right * lx
        for oh in range(oh0, minimum(oh0 + TR, OH)):
            num = maximum(2 * oh + 1 - S, 0)
            y0 = num // S2
            y1 = minimum(y0 + 1, H - 1)
            ly = (num - S2 * y0) * (1.0 / S2)
            store(y[n, c, oh, :], wide[y0 - r0, :] * (1.0 - ly) + wide[y1 - r0, :] * ly)
