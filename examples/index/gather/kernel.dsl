# gather along rows: y[r, k] = x[r, idx[r, k]].
# A core takes whole rows (balanced blocks over the cores): the row of x is loaded into UB once
# (8192 f32 = 32 KiB at the MKB shape) and its indices stream through in tiles of TK; each tile
# is one gather on chip (AscendC Gather by byte offsets: the i64 indices narrowed to i32 and
# scaled by 4). x and idx are read once, y written once.
kernel gather_dim1(x: gm f32[R, C], idx: gm i64[R, K]) -> (y: gm f32[R, K]):
    const TK = minimum(K, 2048)
    for r in parallel(R):
        row = load(x[r, :])
        for k in range(0, K, TK):
            store(y[r, k:k + TK], gather(row, load(idx[r, k:k + TK])))
