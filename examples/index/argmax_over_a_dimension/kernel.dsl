# argmax over the middle axis of x[B, N, M]: y[b, m] = the first n with x[b, n, m] maximal.
# The reduced axis is the middle one, so a [rows, columns] block of one image is a plain 2-D copy
# and the reduction runs down its rows, one column per lane. A core owns (image, column block)
# units of TM = 512 columns (1,024 units at the MKB shape, 128 x 4096 x 4095) and streams the N rows
# through UB NC = 8 at a time ([8, 512] f32, 16 KiB, one copy each), keeping a running (value,
# index) pair per column: a chunk's column maxima and their first row replace the pair only where
# they are strictly greater (>), so the first maximum wins as in torch, or where the chunk's
# maximum is NaN and the pair's is not (torch's argmax takes the first NaN as the maximum). x is
# read once and nothing goes through GM between (the chunks' partials went through scratch in a
# second phase before: 9,331 us at the MKB shape, 7,554 us now); the index is widened to int64 at
# the store. NaN inputs: within a chunk the first NaN wins (argmax(u, axis=0)); across chunks the fold
# needs max(u, axis=0) to be NaN for a chunk that holds one, which the 910B's vector Max/Min do not
# promise (IEEE maxNum/minNum, docs/verification.md: NaN inputs are not verified). A fold exact for
# NaN (a flag per column from cast(u != u, f32), taken over the rows) costs 24 % at the MKB shape.
kernel argmax_dim1(x: gm f32[B, N, M]) -> (y: gm i64[B, M]):
    const TM = minimum(M, 512)
    const NC = 8
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        t = load(x[b, 0:NC, m:m + TM])
        bv = max(t, axis=0)
        bi = argmax(t, axis=0, dtype=i32)
        for p in range(NC, N, NC):
            u = load(x[b, p:p + NC, m:m + TM])
            cv = max(u, axis=0)
            better = (cv > bv) | ((cv != cv) & (bv == bv))
            bi = where(better, argmax(u, axis=0, dtype=i32) + p, bi)
            bv = where(better, cv, bv)
        store(y[b, m:m + TM], cast(bi, i64))
