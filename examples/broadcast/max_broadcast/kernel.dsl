# maximum(a [A, 1, C], b [1, B, 1]) -> [A, B, C]: the op writes A*B*C values from A*C + B
# inputs, so it is bound by the stores. Each work unit is one a-row i and a block of RB values
# of b: the block is an [RB, 1] column, a's slice a [1, TW] row, and their outer maximum an
# [RB, TW] tile stored as one DMA (per row of the tile: b's value on the scalar unit and one
# Maxs over the row). RB x TW = 8192 (32 KiB); at the MKB shape 8 x 1024, 16 x 32 = 512 units
# over 48 cores.
kernel max_broadcast(a: gm f32[A, 1, C], b: gm f32[1, B, 1]) -> (y: gm f32[A, B, C]):
    const TW = minimum(C, 4096)
    const RB = maximum(1, minimum(B, 8192 // TW))
    for i, jb in parallel(A, cdiv(B, RB)):
        j = jb * RB
        col = load(b[0, j:j + RB, :])
        for c in range(0, C, TW):
            store(y[i, j:j + RB, c:c + TW], maximum(col, load(a[i, :, c:c + TW])))
