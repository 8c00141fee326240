# argmax over the middle axis of x[B, N, M]: y[b, m] = the first n with x[b, n, m] maximal.
# Phase 1: the N rows of an image are cut into chunks of NC; a core takes (image, chunk, column
# block) units, loads the chunk's [NC, TM] block with one copy and writes its column maxima and
# their first row (argmax along axis 0, as i32: on-chip index arithmetic) to scratch.
# Phase 2 folds the P = cdiv(N, NC) chunk results of each column in chunk order: a later chunk
# replaces the running (value, index) pair only where it is strictly greater (>), so the first
# maximum wins as in torch; the index is widened to int64 at the store. At the MKB shape
# (128 x 4096 x 4095) phase 1 has 128 * 128 * 16 units of 32 KiB; x is read once.
kernel argmax_dim1(x: gm f32[B, N, M]) -> (y: gm i64[B, M]):
    const TM = minimum(M, 256)
    const NC = 32
    const P = cdiv(N, NC)
    scratch pv: f32[B, P, M]
    scratch pi: i32[B, P, M]
    for b, p, mb in parallel(B, P, cdiv(M, TM)):
        m = mb * TM
        t = load(x[b, p * NC:p * NC + NC, m:m + TM])
        store(pv[b, p, m:m + TM], max(t, axis=0))
        store(pi[b, p, m:m + TM], argmax(t, axis=0, dtype=i32) + p * NC)
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
