# scatter_add along rows: y[r, idx[r, k]] += updates[r, k], starting from x.
# A core takes whole rows: the row of x stays in UB (4096 f32 = 16 KiB at the MKB shape) while its
# indices and updates stream through in tiles of TK; each tile is added in with scatter_add, a loop
# on the scalar unit in index order (repeated indices all add up, in PyTorch's order). The row is
# stored once. x, idx and updates are read once, y written once.
kernel scatter_add_dim1(x: gm f32[R, C], idx: gm i64[R, K], updates: gm f32[R, K]) -> (y: gm f32[R, C]):
    const TK = minimum(K, 2048)
    for r in parallel(R):
        row = load(x[r, :])
        for k in range(0, K, TK):
            row = scatter_add(row, load(idx[r, k:k + TK]), load(updates[r, k:k + TK]))
        store(y[r, :], row)
