# index_add along dim 0: y = x; y[indices[k], :] += values[k, :].
# Phase 1 copies x to y (rows spread over the cores). Phase 2 spreads the source rows over the
# cores: each reads its destination row from indices (a one-value i64 tile, read on the scalar
# unit) and adds the source row into y with atomic_add (SetAtomicAdd + DataCopy to GM), so
# duplicate indices accumulate even when two cores hold the same one. Row tiles of up to 8192.
kernel index_add_dim0(x: gm f32[R, C], indices: gm i64[K], values: gm f32[K, C]) -> (y: gm f32[R, C]):
    const T = minimum(C, 8192)
    for r in parallel(R):
        for j in range(0, C, T):
            store(y[r, j:j + T], load(x[r, j:j + T]))
    for k in parallel(K):
        d = load(indices[k])
        for j in range(0, C, T):
            atomic_add(y[d, j:j + T], load(values[k, j:j + T]))
