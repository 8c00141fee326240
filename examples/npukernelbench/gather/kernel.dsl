# torch.gather along the last axis: y[r, k] = x[r, index[r, k]]. x and index bind by name (dim,
# an int, is left out: every group gathers along the last axis); both have B rows of any
# leading rank. One row of x in UB while its indices stream through in tiles of TK.
kernel gather[T: (f16, bf16, f32)](x: gm T[*B, N], index: gm i64[*B, K]) -> (y: gm T[*B, K]):
    const TK = 4096
    for r in parallel(B):
        row = load(x[r, :])
        for k in range(0, K, TK):
            store(y[r, k:k + TK], gather(row, load(index[r, k:k + TK])))
