# x + bias[c] over NCHW: each (image, channel) plane is [H, W]; its bias is one value read once
# (a scalar operand: Adds, no broadcast tile). Planes are split in blocks of HB rows of at most
# 8192 elements; at the MKB shape a plane (32 x 32) is one 4 KiB tile and 4096 planes spread
# over 48 cores.
kernel add_bias_4d(x: gm f32[N, C, H, W], bias: gm f32[C]) -> (y: gm f32[N, C, H, W]):
    const HB = maximum(1, minimum(H, 8192 // W))
    for n, c in parallel(N, C):
        b = load(bias[c])
        for h in range(0, H, HB):
            store(y[n, c, h:h + HB, :], load(x[n, c, h:h + HB, :]) + b)
