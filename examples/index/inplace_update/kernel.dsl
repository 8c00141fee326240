# x[idx] = value along dim 0 (index_put_ of rows): y = x; y[idx[k], :] = value[k, :], a repeated
# index keeping its last k. The same plan as examples/index/index_copy, sized for 10000 rows: plain
# stores from several cores would race on a repeated index, so each index's last k is found first
# and only that value row is stored: every destination row has one writer. Exact for every value
# (rows are copied, never scaled), inf and NaN included.
# * Phase 1, core 0 (a `range(1 - minimum(c, 1))` loop: the DSL's `if`): last[r] = the last k with
#   idx[k] == r, or -1 (a scatter of k = 0, 1, ... into a row of -1 in index order on the scalar
#   unit; 10000 i32 = 39 KiB at the MKB shape), and the per-row flag wins[k] = 1 if last[idx[k]] == k
#   else 0, a vector gather in 1024-index tiles. Meanwhile the other CORES - 1 cores copy x into y,
#   2500 blocks of RB = 4 rows ([4, 1024] f32 = 16 KiB copies) in balanced runs (53 or 54 blocks:
#   the next block's load overlaps this one's store). RB = 4, not 8: beside core 0's table the UB
#   holds a two-slot queue of 16 KiB blocks, not of 32 KiB ones (those went through a work buffer
#   without overlap): 80 us at the MKB shape, where RB = 8 took 94.7 (the table first, then the
#   copy: 103).
# * Phase 2: the value rows in balanced runs per core (42 or 43): the flag and the destination (read
#   in blocks by the lowering), a winner's row stored over y's (a loser's range(flag) loop runs zero
#   times).
# HBM traffic is the floor's plus the indexed rows of x copied and then overwritten; torch writes
# into x itself, so eager's bound is below this kernel's floor (docs/performance.md).
kernel inplace_update_dim0(x: gm f32[R, C], idx: gm i64[K], value: gm f32[K, C]) -> (y: gm f32[R, C]):
    const RB = 4
    const T = minimum(C, 1024)
    const TK = minimum(K, 1024)
    const NB = cdiv(R, RB)
    const W = CORES - 1
    scratch wins: i32[K]
    for c in parallel(CORES):
        for first in range(1 - minimum(c, 1)):
            lastk = scatter(full((R,), -1, i32), load(idx), iota(K, i32))
            for i in range(0, K, TK):
                later = gather(lastk, load(idx[i:i + TK])) - iota(TK, i32, start=i)[0:K - i]
                store(wins[i:i + TK], 1 - minimum(later, 1))
        for b in range(maximum(c - 1, 0) * NB // W, c * NB // W):
            r = b * RB
            for j in range(0, C, T):
                store(y[r:r + RB, j:j + T], load(x[r:r + RB, j:j + T]))
    for c in parallel(CORES):
        for k in range(c * K // CORES, (c + 1) * K // CORES):
            d = load(idx[k])
            for w in range(load(wins[k])):
                for j in range(0, C, T):
                    store(y[d, j:j + T], load(value[k, j:j + T]))
