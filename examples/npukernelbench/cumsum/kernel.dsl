# Cumulative sum along axis dim of a tensor of any rank: x is read as [A, D, B] around that axis.
# Two phases, one of which has no iteration: when dim is the last axis (B = 1) each of the A rows
# is one run of D elements, scanned in tiles with a carry; otherwise blocks of TB columns go down
# the D rows, a running sum per column. f16 and bf16 are summed in f32 and rounded once.
kernel cumsum[T: (f16, bf16, f32)](x: gm T[*A(dim), D, *B], dim: i32) -> (y: gm T[*A, D, *B]):
    const TR = 4096
    const TB = 512
    const ROWS = A * maximum(0, 1 - (B - 1) * (B - 1))
    const COLS = A * minimum(1, B // 2) * minimum(1, D)
    const DB = D * B
    xr = view(x, (A, DB))
    yr = view(y, (A, DB))
    for a in parallel(ROWS):
        carry = 0.0
        for j in range(0, D, TR):
            t = cast(load(xr[a, j:j + TR]), f32)
            store(yr[a, j:j + TR], cast(cumsum(t) + carry, T))
            carry = carry + sum(t)
    for a, k in parallel(COLS, cdiv(B, TB)):
        b = k * TB
        acc = cast(load(x[a, 0, b:b + TB]), f32)
        store(y[a, 0, b:b + TB], cast(acc, T))
        for d in range(1, D):
            acc = acc + cast(load(x[a, d, b:b + TB]), f32)
            store(y[a, d, b:b + TB], cast(acc, T))
