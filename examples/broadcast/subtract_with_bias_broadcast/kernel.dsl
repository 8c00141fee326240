# x - bias, bias a [C] row broadcast over the rows. Work unit: a column block of TW and a chunk
# of RS rows; the unit loads its bias slice once and streams its rows in [RB, TW] tiles of up to
# 8192 elements (32 KiB, double-buffered), so x is read once and bias once per row chunk. TW is
# C / CORES clamped to [256, 4096] (rounded to the 8-float block): narrow enough that the column
# blocks alone feed the cores when R is small, wide enough for long DMA bursts. Row chunks
# (a multiple of RB) split what the column blocks leave of the 48 cores. At the MKB shape
# (8 x 4096, launch bound) that is 16 column blocks of 256 x all 8 rows: x and bias read once.
kernel subtract_with_bias_broadcast(x: gm f32[R, C], bias: gm f32[C]) -> (y: gm f32[R, C]):
    const TW = minimum(C, maximum(256, minimum(4096, cdiv(cdiv(C, CORES), 8) * 8)))
    const RB = maximum(1, minimum(R, 8192 // TW))
    const RS = RB * cdiv(cdiv(R, RB), maximum(1, CORES // cdiv(C, TW)))
    for rs, cb in parallel(cdiv(R, RS), cdiv(C, TW)):
        c = cb * TW
        bt = load(bias[c:c + TW])
        for r in range(rs * RS, minimum(rs * RS + RS, R), RB):
            store(y[r:r + RB, c:c + TW], load(x[r:r + RB, c:c + TW]) - bt)
