# GELU of f16 values, exact form: y = x * (0.5 + 0.5 * erf(x / sqrt(2))), element-wise.
# Loads and stores stay f16 (half the HBM bytes of f32; erf's vector work bounds the kernel).
# The lowering runs erf, a composition of about twenty vector ops, in f32 (one Cast in, one out:
# rounding each of them in half would lose the interpreter's value), the rest natively in half.
# [RB, TW] tiles of at most 4096 elements (8 KiB of f16; erf's f32 temporaries are 16 KiB each:
# 8192-element tiles modeled 40% slower at the MKB shape), whole rows when rows are short; the
# parallel loop spreads all (row block, column block) pairs evenly over the cores.
kernel gelu_f16(x: gm f16[B, N]) -> (y: gm f16[B, N]):
    const T = 4096
    const TW = minimum(N, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(B, RB), cdiv(N, TW)):
        r = rb * RB
        c = cb * TW
        t = load(x[r:r + RB, c:c + TW])
        store(y[r:r + RB, c:c + TW], t * (0.5 + 0.5 * erf(t * 0.7071067811865476)))
