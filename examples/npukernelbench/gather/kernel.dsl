# torch.gather along axis dim: y[a, k, b] = x[a, index[a, k, b], b], with x read as [A, D, B]
# around dim and index as [IA, K, B] (index may have fewer leading rows than x: IA <= A; as in the
# task's groups, its axes after dim are x's). Two phases, one of which has no iteration: when dim
# is the last axis (B = 1) a row of x stays in UB while its indices stream through; else a block
# of TB columns of x, transposed to [TB, D], stays while [TR, TB] blocks of indices, transposed,
# pick from its rows (a gather along axis 1 lowers; along axis 0 it does not).
kernel gather[T: (f16, bf16, f32)](x: gm T[*A(dim), D, *B], dim: i32, index: gm i64[*IA(dim), K, *B]) -> (
        y: gm T[*IA, K, *B]):
    const TK = 2048
    const TB = 16
    const TR = 128
    const TD = 512
    const ROWS = IA * maximum(0, 1 - (B - 1) * (B - 1))
    const COLS = IA * minimum(1, B // 2)
    const DB = D * B
    const KB = K * B
    xr = view(x, (A, DB))
    ir = view(index, (IA, KB))
    yr = view(y, (IA, KB))
    for a in parallel(ROWS):
        row = load(xr[a, 0:D])
        for k in range(0, K, TK):
            store(yr[a, k:k + TK], gather(row, load(ir[a, k:k + TK])))
    for a, c in parallel(COLS, cdiv(B, TB)):
        b = c * TB
        for k in range(0, K, TR):
            idx = transpose(cast(load(index[a, k:k + TR, b:b + TB]), i32))
            out = transpose(load(x[a, 0:TD, b:b + TB]))
            got = gather(out, minimum(idx, TD - 1), axis=1)
            for d in range(TD, D, TD):
                rel = idx - d
                part = gather(transpose(load(x[a, d:d + TD, b:b + TB])), maximum(minimum(rel, minimum(TD, D - d) - 1), 0), axis=1)
                got = where(rel >= 0, part, got)
            store(y[a, k:k + TR, b:b + TB], transpose(got))
