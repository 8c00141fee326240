# index_copy along dim 0: y = x; y[indices[k], :] = src[k, :], a repeated index keeping its last k.
# Plain stores from the cores would race on a repeated index, so the copy is done as a sum that
# cores may share: y = x with the indexed rows zeroed, then atomic_add of each source row scaled by
# 1 if it is the last with its index, else 0 (adding 0 changes nothing). Exact for finite values only:
# an inf or NaN times a 0 flag is NaN. (where(...) instead of the products is exact for every value,
# but its [RB, 1] mask lowers to ten vector ops per tile today: 351 us instead of 129 at MKB's shape.)
# * Once, on one core: last[r] = the last k with indices[k] == r, or -1 (a scatter of k = 0, 1, ...
#   into a row of -1, in index order on the scalar unit: 8192 i32 = 32 KiB at the MKB shape), and
#   the per-source flag wins[k] = (last[indices[k]] == k), a vector gather in 1024-index tiles.
# * Phase 1 copies x to y in blocks of RB = 8 rows ([8, 1024] f32 = 32 KiB copies), each row times
#   its keep flag (1 where no index hits it), a [RB, 1] column broadcast along the row. Each core
#   walks a balanced run of blocks, so the next block's load overlaps this block's store, and
#   loads its blocks' flags with one copy.
# * Phase 2 spreads the source rows over the cores in balanced runs: each reads its destination
#   from indices (one value, on the scalar unit) and atomic_adds the scaled row into y.
# HBM traffic is the floor's (x, src read once, y written once) plus the zero rows the losers
# add; the serial prologue and the 4 KiB row copies of phase 2 are what keep it from the floor.
kernel index_copy_dim0(x: gm f32[R, C], indices: gm i64[K], src: gm f32[K, C]) -> (y: gm f32[R, C]):
    const RB = 8
    const T = minimum(C, 1024)
    const TK = minimum(K, 1024)
    const KB = cdiv(K, CORES)
    const NB = cdiv(R, RB)
    const BC = cdiv(NB, CORES)
    scratch last: i32[R, 1]
    scratch wins: f32[K]
    lastk = scatter(full((R,), -1, i32), load(indices), iota(K, i32))
    store(last[:, 0], lastk)
    for i in range(0, K, TK):
        later = gather(lastk, load(indices[i:i + TK])) - iota(TK, i32, start=i)[0:K - i]
        store(wins[i:i + TK], cast(1 - minimum(later, 1), f32))     # later >= 0; 0 for the last k
    for c in parallel(CORES):
        b0 = c * NB // CORES
        keep = cast(-minimum(load(last[b0 * RB:b0 * RB + BC * RB, :]), 0), f32)    # 1 where last = -1
        for b in range(b0, (c + 1) * NB // CORES):
            r = b * RB
            for j in range(0, C, T):
                store(y[r:r + RB, j:j + T], load(x[r:r + RB, j:j + T]) * keep[r - b0 * RB:r - b0 * RB + RB, :])
    for c in parallel(CORES):
        k0 = c * K // CORES
        wt = load(wins[k0:k0 + KB])
        for k in range(k0, (c + 1) * K // CORES):
            d = load(indices[k])
            for j in range(0, C, T):
                atomic_add(y[d, j:j + T], load(src[k, j:j + T]) * wt[k - k0])
