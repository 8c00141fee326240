# Sum over the middle axis of x[B, N, M] (keepdim): y[b, 0, m] = sum_n x[b, n, m].
# The reduced axis is not contiguous, so there is no row to sum: a core owns a column block
# of TM = 1024 values of one image and streams the N rows through UB RN = 8 at a time
# ([8, 1024] tiles, 32 KiB: 8 contiguous 4 KiB runs, small enough to double-buffer), adding
# them into a [TM] accumulator with a sum over axis 0 (element-wise adds on the vector unit, no cross-lane reduction).
# The accumulator starts from the first tile, so at the right edge it has the short
# block's exact length. Work units are (image, column block): 512 at the MKB shape.
# x is read once.
kernel sum_dim1(x: gm f32[B, N, M]) -> (y: gm f32[B, 1, M]):
    const TM = minimum(M, 1024)
    const RN = maximum(1, 8192 // TM)
    for b, mb in parallel(B, cdiv(M, TM)):
        m = mb * TM
        acc = sum(load(x[b, 0:RN, m:m + TM]), axis=0)
        for n in range(RN, N, RN):
            acc = acc + sum(load(x[b, n:n + RN, m:m + TM]), axis=0)
        store(y[b, 0, m:m + TM], acc)
