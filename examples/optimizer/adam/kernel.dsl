# One Adam step, element-wise over four f32 inputs:
#   m' = beta1 m + (1 - beta1) g;  v' = beta2 v + (1 - beta2) g^2
#   param' = param - lr * m' / (1 - beta1^step) / (sqrt(v' / (1 - beta2^step)) + eps)
# The hyper-parameters are scalar attributes bound from Model.__init__; the bias corrections
# are folded into scalars once (scalar math), not computed per element.
# The op returns only param (as MultiKernelBench's does), so m' and v' stay on chip.
# Tiles are [RB, TW] blocks of at most 4096 elements (four inputs in flight): at the MKB
# shape (2048-long rows) 2 whole rows, one contiguous 16 KiB copy per input. All (row block,
# column block) pairs are spread over the cores. Per element: 4 loads, 1 store.
kernel adam(param: gm f32[R, C], grad: gm f32[R, C], m: gm f32[R, C], v: gm f32[R, C],
            beta1: f32 = 0.9, beta2: f32 = 0.999, lr: f32 = 1e-3, eps: f32 = 1e-8,
            step: f32 = 1.0) -> (out: gm f32[R, C]):
    const T = 4096
    const TW = minimum(C, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TW)):
        r = rb * RB
        c = cb * TW
        g = load(grad[r:r + RB, c:c + TW])
        mt = load(m[r:r + RB, c:c + TW]) * beta1 + g * (1.0 - beta1)
        vt = load(v[r:r + RB, c:c + TW]) * beta2 + g * g * (1.0 - beta2)
        den = sqrt(vt * (1.0 / (1.0 - beta2 ** step))) + eps
        upd = mt * (lr / (1.0 - beta1 ** step)) / den
        store(out[r:r + RB, c:c + TW], load(param[r:r + RB, c:c + TW]) - upd)
