# GELU, exact form: y = 0.5 * x * (1 + erf(x / sqrt(2))), element-wise.
# [RB, TW] tiles of at most 4096 elements (whole rows when rows are short; erf takes about
# twenty vector ops and several live temporaries, so 16 KiB tiles keep double buffering), and the
# parallel loop spreads all (row block, column block) pairs evenly over the cores.
kernel gelu(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 4096
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(B, RB), cdiv(N, TW)):
        r = rb * RB
        c = cb * TW
        t = load(x[r:r + RB, c:c + TW])
        store(y[r:r + RB, c:c + TW], t * (0.5 + 0.5 * erf(t * 0.7071067811865476)))
