# Cumulative sum along the last axis (every group scans dim -1; x binds by name, so dim, an
# int, is left out). B rows of any leading rank, one row per iteration; f16 and bf16 rows are
# scanned in f32 and rounded once, as torch does.
kernel cumsum[T: (f16, bf16, f32)](x: gm T[*B, N]) -> (y: gm T[*B, N]):
    for r in parallel(B):
        store(y[r, :], cast(cumsum(cast(load(x[r, :]), f32)), T))
