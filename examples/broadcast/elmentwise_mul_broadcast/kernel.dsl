# a [A, 1, C] * b [1, B, C] -> y [A, B, C]: the output (A*B*C) dwarfs the inputs ((A + B) * C),
# so the stores bound the op and inputs should not be re-read per output row. Work unit: a block
# of AB rows of a and BB rows of b over TW columns, both loaded once per unit; it writes AB
# [BB, TW] tiles (each b-block times one a-row broadcast over it). Inputs are re-read only once
# per other block (a cdiv(B, BB) times, b cdiv(A, AB) times), not once per output row. TW is
# the units' share of the columns over the 48 cores, clamped to [128, 1024] (tiles of at most
# 8 x 1024 = 32 KiB). At the MKB shape (4 x 4 x 2048, launch bound) that is 16 units of
# 4 x 4 x 128: a and b each read exactly once, on 16 cores.
kernel elmentwise_mul_broadcast(a: gm f32[A, 1, C], b: gm f32[1, B, C]) -> (y: gm f32[A, B, C]):
    const AB = minimum(A, 8)
    const BB = minimum(B, 8)
    const TW = minimum(C, maximum(128, minimum(1024, cdiv(cdiv(C * cdiv(A, AB) * cdiv(B, BB), CORES), 8) * 8)))
    for ib, jb, cb in parallel(cdiv(A, AB), cdiv(B, BB), cdiv(C, TW)):
        i0 = ib * AB
        j = jb * BB
        c = cb * TW
        ta = load(a[i0:i0 + AB, 0, c:c + TW])
        tb = load(b[0, j:j + BB, c:c + TW])
        for i in range(i0, minimum(i0 + AB, A)):
            store(y[i, j:j + BB, c:c + TW], tb * ta[i - i0])
