# x[idx] = value along dim 0 (index_put_ of rows): y = x; y[idx[k], :] = value[k, :], a repeated
# index keeping its last k. The same plan as examples/index/index_copy, sized for 10000 rows: plain
# stores from several cores would race on a repeated index, so the update is a sum the cores can
# share. y = x with the indexed rows zeroed, then atomic_add of each value row scaled by 1 if it is
# the last with its index, else 0 (adding 0 changes nothing). Exact for finite values only (see
# examples/index/index_copy: where(...) is exact for inf and NaN too, but slower as it lowers today).
# * Once, on one core: last[r] = the last k with idx[k] == r, or -1 (a scatter of k = 0, 1, ... into
#   a row of -1 in index order on the scalar unit; 10000 i32 = 39 KiB at the MKB shape), and the
#   per-row flag wins[k] = (last[idx[k]] == k), a vector gather in 1024-index tiles.
# * Phase 1: 1250 blocks of RB = 8 rows ([8, 1024] f32 = 32 KiB copies) in balanced runs per core
#   (26 or 27 blocks: the next block's load overlaps this one's store), each row times its keep
#   flag (1 where no index hits it) as a [RB, 1] column; the run's flags come in one copy.
# * Phase 2: the value rows in balanced runs per core (42 or 43): the destination read from idx on
#   the scalar unit, the scaled row added with atomic_add.
# HBM traffic is the floor's plus the zero rows the losers add; the serial prologue and phase 2's
# 4 KiB row copies are what keep it from the floor.
kernel inplace_update_dim0(x: gm f32[R, C], idx: gm i64[K], value: gm f32[K, C]) -> (y: gm f32[R, C]):
    const RB = 8
    const T = minimum(C, 1024)
    const TK = minimum(K, 1024)
    const KB = cdiv(K, CORES)
    const NB = cdiv(R, RB)
    const BC = cdiv(NB, CORES)
    scratch last: i32[R, 1]
    scratch wins: f32[K]
    lastk = scatter(full((R,), -1, i32), load(idx), iota(K, i32))
    store(last[:, 0], lastk)
    for i in range(0, K, TK):
        later = gather(lastk, load(idx[i:i + TK])) - iota(TK, i32, start=i)[0:K - i]
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
            d = load(idx[k])
            for j in range(0, C, T):
                atomic_add(y[d, j:j + T], load(value[k, j:j + T]) * wt[k - k0])
