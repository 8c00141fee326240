# SGD with momentum: velocity' = momentum * velocity + grad; param' = param - lr * velocity'.
# Element-wise over [RB, TW] tiles of at most 8192 elements (at the MKB shape, 4096-long
# rows: 2 whole rows per tile); all tiles are spread evenly over the cores.
# 3 loads and 1 store per element; velocity' is not written back (the op returns param only).
kernel sgd(param: gm f32[R, C], grad: gm f32[R, C], velocity: gm f32[R, C],
           momentum: f32 = 0.9, lr: f32 = 1e-2) -> (out: gm f32[R, C]):
    const T = 8192
    const TW = minimum(C, T)
    const RB = maximum(1, T // TW)
    for rb, cb in parallel(cdiv(R, RB), cdiv(C, TW)):
        r = rb * RB
        c = cb * TW
        vel = load(velocity[r:r + RB, c:c + TW]) * momentum + load(grad[r:r + RB, c:c + TW])
        store(out[r:r + RB, c:c + TW], load(param[r:r + RB, c:c + TW]) - vel * lr)
