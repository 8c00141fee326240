# take_along_dim along rows: y[r, k] = x[r, idx[r, k]] (idx has x's rank, so each row picks its own
# columns). The gather runs on chip: a core takes whole rows, loads the row of x into UB once
# (8192 f32 = 32 KiB at the MKB shape) and streams that row's indices through in tiles of TK; each
# tile is one AscendC Gather (the i64 indices narrowed to i32 byte offsets), stored straight back.
# Rows, not (row, index tile) units, are the work: the kernel is bound by HBM, which the cores
# share, so the uneven 128-over-48 split costs nothing, while cutting a row's 4096 indices over two
# cores would load its 32 KiB row twice. x and idx are read once, y written once; the copies
# double-buffer against the gathers (one vector Gather per 2048 indices, the scalar unit idle).
kernel take_along_dim1(x: gm f32[R, C], idx: gm i64[R, K]) -> (y: gm f32[R, K]):
    const TK = minimum(K, 2048)
    for r in parallel(R):
        row = load(x[r, :])
        for k in range(0, K, TK):
            store(y[r, k:k + TK], gather(row, load(idx[r, k:k + TK])))
