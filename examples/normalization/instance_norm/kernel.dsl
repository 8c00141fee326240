# InstanceNorm2d: y = (x - mean) * rsqrt(var + eps) per (b, c) image of x[B, C, H, W].
# One image per parallel iteration (8192 of them at the MKB shape), two passes over it:
# shifted sums (of x - k, k = the image's first element, so the variance does not cancel
# away for data far from zero), then the normalization. Between the passes a core's image
# (1 MiB at the MKB shape; 48 MiB for all cores) stays in L2.
# [R, TW] tiles of at most 8192 elements: whole rows when W <= 8192 (contiguous blocks).
kernel instance_norm(x: gm f32[B, C, H, W], eps: f32 = 1e-5) -> (y: gm f32[B, C, H, W]):
    const T = 8192
    const TW = minimum(W, T)
    const R = maximum(1, T // TW)
    for b, c in parallel(B, C):
        k = load(x[b, c, 0, 0])
        s = 0.0
        q = 0.0
        for h in range(0, H, R):
            for w in range(0, W, TW):
                t = load(x[b, c, h:h + R, w:w + TW]) - k
                s = s + sum(t)
                q = q + sum(t * t)
        d = s * (1.0 / (H * W))
        rstd = rsqrt(q * (1.0 / (H * W)) - d * d + eps)
        mu = k + d
        for h in range(0, H, R):
            for w in range(0, W, TW):
                store(y[b, c, h:h + R, w:w + TW], (load(x[b, c, h:h + R, w:w + TW]) - mu) * rstd)
