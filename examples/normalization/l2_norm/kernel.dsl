# Row-wise L2 normalization, y = x * rsqrt(sum(x^2)), for rows longer than the UB:
# a sum-of-squares pass and a scaling pass over 8192-element tiles, one row per parallel
# iteration (32768 rows at the MKB shape, 683 per core). The second pass re-reads a row a
# core has just read (256 KiB; 12 MiB for all cores), which the L2 serves.
kernel l2_norm(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 8192
    for b in parallel(B):
        q = 0.0
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            q = q + sum(t * t)
        r = rsqrt(q)
        for j in range(0, N, T):
            store(y[b, j:j + T], load(x[b, j:j + T]) * r)
