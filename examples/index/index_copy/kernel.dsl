# index_copy along dim 0: y = x; y[indices[k], :] = src[k, :], a repeated index keeping its last k.
# Plain stores from several cores would race on a repeated index, so each index's last k is found
# first and only that source row is stored: every destination row then has one writer. Exact for
# every value (rows are copied, never scaled), inf and NaN included.
# * Phase 1, core 0 (a `range(1 - minimum(c, 1))` loop runs once there and not elsewhere: the DSL
#   has no `if`): last[r] = the last k with indices[k] == r, or -1 (a scatter of k = 0, 1, ... into a
#   row of -1, in index order on the scalar unit: 8192 i32 = 32 KiB at the MKB shape), and the
#   per-source flag wins[k] = 1 if last[indices[k]] == k else 0, a vector gather in 1024-index tiles.
#   Meanwhile the other CORES - 1 cores copy x to y in blocks of RB = 4 rows ([4, 1024] f32 = 16 KiB
#   copies), each a balanced run of blocks, so the next block's load overlaps this block's store.
#   RB = 4, not 8: with core 0's table buffers live, the UB has room for a two-slot queue of 16 KiB
#   blocks and none of 32 KiB ones, which went through a work buffer without overlap (check's
#   warning): 68.4 us at the MKB shape, where RB = 8 took 80.6 (the table first, then the copy: 85.4).
# * Phase 2 spreads the source rows over the cores in balanced runs: each reads its flag and its
#   destination (the lowering reads both in blocks); a winner's row is stored over y's, a loser's
#   loop of its flag's length runs zero times (a range(flag) loop is the DSL's `if`).
# HBM traffic is the floor's (x and the winning src rows read once, y written once) plus the
# indexed rows of x copied and then overwritten.
kernel index_copy_dim0(x: gm f32[R, C], indices: gm i64[K], src: gm f32[K, C]) -> (y: gm f32[R, C]):
    const RB = 4
    const T = minimum(C, 1024)
    const TK = minimum(K, 1024)
    const NB = cdiv(R, RB)
    const W = CORES - 1
    scratch wins: i32[K]
    for c in parallel(CORES):
        for first in range(1 - minimum(c, 1)):
            lastk = scatter(full((R,), -1, i32), load(indices), iota(K, i32))
            for i in range(0, K, TK):
                later = gather(lastk, load(indices[i:i + TK])) - iota(TK, i32, start=i)[0:K - i]
                store(wins[i:i + TK], 1 - minimum(later, 1))
        for b in range(maximum(c - 1, 0) * NB // W, c * NB // W):
            r = b * RB
            for j in range(0, C, T):
                store(y[r:r + RB, j:j + T], load(x[r:r + RB, j:j + T]))
    for c in parallel(CORES):
        for k in range(c * K // CORES, (c + 1) * K // CORES):
            d = load(indices[k])
            for w in range(load(wins[k])):
                for j in range(0, C, T):
                    store(y[d, j:j + T], load(src[k, j:j + T]))
