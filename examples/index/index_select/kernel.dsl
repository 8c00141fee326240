# index_select along columns: y[r, k] = x[r, indices[k]] for every row r.
# Every row picks the same columns, so each core loads the index vector once (2048 i64 = 16 KiB at
# the MKB shape) and then walks its balanced block of rows: a row of x in UB (8192 f32 = 32 KiB),
# one gather by the index tile, one store. x is read once, y written once; the indices once per core.
kernel index_select_dim1(x: gm f32[R, C], indices: gm i64[K]) -> (y: gm f32[R, K]):
    for c in parallel(CORES):
        ix = load(indices)
        for r in range(c * R // CORES, (c + 1) * R // CORES):
            store(y[r, :], gather(load(x[r, :]), ix))
