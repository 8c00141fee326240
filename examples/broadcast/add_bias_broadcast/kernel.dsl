# x + bias, bias a 0-d tensor: loaded once per work unit as a one-element tile and added on the
# scalar path (Adds), so no broadcast tile is built and x is read exactly once. Work unit: RB
# rows x TW columns, T elements, T = total / CORES clamped to [1024, 8192] so every core gets
# work while each DMA stays >= 4 KiB, and large shapes get 32 KiB tiles. At the MKB shape
# (4 x 2048, 32 KiB in all: launch bound) that is 8 units of 1 x 1024 on 8 cores.
kernel add_bias_broadcast(x: gm f32[R, C], bias: gm f32[]) -> (y: gm f32[R, C]):
    const T = maximum(1024, minimum(8192, cdiv(R * C, CORES)))
    const TW = minimum(C, T)
    const RB = maximum(1, minimum(R, T // TW))
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TW)):
        r = rb * RB
        c = cb * TW
        store(y[r:r + RB, c:c + TW], load(x[r:r + RB, c:c + TW]) + load(bias))
