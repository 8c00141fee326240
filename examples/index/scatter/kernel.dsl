# scatter along rows: y = x; y[r, idx[r, k]] = updates[r, k], a repeated index keeping the last
# update in index order (what PyTorch's CPU kernel does). A core takes whole rows: the row of x
# stays in UB (8192 f32 = 32 KiB at the MKB shape) while its indices and updates stream through in
# tiles of TK, each written in by scatter, a loop on the scalar unit in index order, so repeats
# resolve exactly as in PyTorch with no ordering between cores. The row is stored once; x, idx and
# updates are read once, y written once. The scalar loop (one SetValue per index) bounds the time,
# not HBM: 64 rows over 48 cores leave 16 cores with two rows (8192 indices). Balancing that by
# cutting each row's indices into chunks on different cores (per-chunk last-position rows merged
# with maximum, then a vector gather of updates) needs full-width i32 rows in UB for the chunk's
# scatter and did not fit the lowering's buffers at C = 8192; TK = 2048 keeps the copies of the
# next tile under the scalar loop.
kernel scatter_dim1(x: gm f32[R, C], idx: gm i64[R, K], updates: gm f32[R, K]) -> (y: gm f32[R, C]):
    const TK = minimum(K, 2048)
    for r in parallel(R):
        row = load(x[r, :])
        for k in range(0, K, TK):
            row = scatter(row, load(idx[r, k:k + TK]), load(updates[r, k:k + TK]))
        store(y[r, :], row)
