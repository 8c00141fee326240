# argmin over the middle axis of x[B, N, M]: y[b, m] = the first n with x[b, n, m] minimal.
# The reduced axis is the middle one, so a [rows, columns] block of one image is a plain 2-D copy
# and the reduction runs down its rows (Compare/Select/Min per row on the vector unit), one column
# per lane. Whole images would be units of 64 MiB at the MKB shape (128 x 4096 x 4095) and too few on
# small ones, so the N rows are cut into chunks of NC as well: phase 1 takes (image, chunk, column
# block) units, blocks of 32 x 256 f32 (32 KiB, one copy each), and writes each block's column minima
# and their first row (argmin along axis 0, i32 for on-chip index arithmetic) to scratch.
# Phase 2 folds the P = cdiv(N, NC) partial results of each column in chunk order: a later chunk
# replaces the running (value, index) pair only where it is strictly smaller (<), so the first
# minimum wins as in torch; the index is widened to int64 at the store. x is read once; the
# scratch traffic is 1/NC of it.
kernel argmin_dim1(x: gm f32[B, N, M]) -> (y: gm i64[B, M]):
    const TM = minimum(M, 256)
    const NC = 32
    const P = cdiv(N, NC)
    scratch pv: f32[B, P, M]
    scratch pi: i32[B, P, M]
    for b, p, mb in parallel(B, P, cdiv(M, TM)):
        m = mb * TM
        t = load(x[b, p * NC:p * NC + NC, m:m + TM])
        store(pv[b, p, m:m + TM], min(t, axis=0))
        store(pi[b, p, m:m + TM], argmin(t, axis=0, dtype=i32) + p * NC)
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        bv = load(pv[b, 0, m:m + TM])
        bi = load(pi[b, 0, m:m + TM])
        for p in range(1, P):
            v = load(pv[b, p, m:m + TM])
            better = v < bv
            bi = where(better, load(pi[b, p, m:m + TM]), bi)
            bv = where(better, v, bv)
        store(y[b, m:m + TM], cast(bi, i64))
