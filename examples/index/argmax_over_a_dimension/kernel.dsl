# argmax over the middle axis of x[B, N, M]: y[b, m] = the first n with x[b, n, m] maximal.
# Phase 1: the N rows of an image are cut into chunks of NC; a core takes (image, chunk, column
# block) units and streams the chunk's rows through UB, keeping a running (value, index) pair per
# column. A row replaces the pair only where it is strictly greater (>), so the first maximum wins
# as in torch; indices are i32 on chip (where on i32 is a Select). Each unit writes its pair to
# scratch. Phase 2 folds the P = cdiv(N, NC) pairs of each column in chunk order with the same rule
# and widens the index to int64 at the store. At the MKB shape (16 x 256 x 256) phase 1 has
# 16 * 8 = 128 units of 32 rows for 48 cores instead of 16 units of 256 rows; x is read once.
kernel argmax_dim1(x: gm f32[B, N, M]) -> (y: gm i64[B, M]):
    const TM = minimum(M, 256)
    const NC = 32
    const P = cdiv(N, NC)
    scratch pv: f32[B, P, M]
    scratch pi: i32[B, P, M]
    for b, p, mb in parallel(B, P, cdiv(M, TM)):
        m = mb * TM
        t = load(x[b, p * NC:p * NC + NC, m:m + TM])          # the chunk: one copy of NC rows
        bv = t[0]
        bi = cast(where(bv > bv, bv, 0.0), i32) + p * NC     # the chunk's first row, at the block's length
        for i in range(1, minimum(NC, N - p * NC)):
            v = t[i]
            better = v > bv
            bi = where(better, p * NC + i, bi)
            bv = where(better, v, bv)
        store(pv[b, p, m:m + TM], bv)
        store(pi[b, p, m:m + TM], bi)
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        bv = load(pv[b, 0, m:m + TM])
        bi = load(pi[b, 0, m:m + TM])
        for p in range(1, P):
            v = load(pv[b, p, m:m + TM])
            better = v > bv
            bi = where(better, load(pi[b, p, m:m + TM]), bi)
            bv = where(better, v, bv)
        store(y[b, m:m + TM], cast(bi, i64))
