# x ** e with e [C] broadcast over the rows, torch.pow's meaning for every sign (the lowering
# computes |x| ** e as exp(e * ln|x|) and fixes the sign, NaN, zero and one cases with masks).
# Work unit: a block of RB rows by TW = 256 columns (<= 4096 f32 each); the exponent's TW slice is
# loaded once per unit and broadcast over its rows. At the MKB shape (4 x 2048) that is 8 units of
# 4 x 256: the op is tiny and launch bound, but pow is some 30 vector ops per element, so spreading
# them over 8 cores (21.3 us modeled) beats 2 units of 4 x 1024 on 2 cores (22.9 us).
kernel power_broadcast(x: gm f32[R, C], e: gm f32[C]) -> (y: gm f32[R, C]):
    const TW = minimum(C, 256)
    const RB = maximum(1, minimum(R, 4096 // TW))
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TW)):
        r = rb * RB
        c = cb * TW
        p = load(e[c:c + TW])
        store(y[r:r + RB, c:c + TW], load(x[r:r + RB, c:c + TW]) ** p)
