# LayerNorm over the last axis for every group. The inputs bind by name (x, weight, bias as in
# Model.forward), so normalized_shape, a list, is left out: N comes from x's last axis. A group
# without weight or bias reads them as 1 and 0. B rows of any leading rank; one row per
# iteration, in f32, mean then variance of the centred row (two sums, as torch).
kernel layer_norm[T: (f16, bf16, f32)](x: gm T[*B, N], weight: gm T[N] = 1.0, bias: gm T[N] = 0.0,
                                       eps: f32 = 1e-5) -> (y: gm T[*B, N]):
    for r in parallel(B):
        t = cast(load(x[r, :]), f32)
        d = t - sum(t) / N
        inv = rsqrt(sum(d * d) / N + eps)
        store(y[r, :], cast(d * inv * cast(load(weight), f32) + cast(load(bias), f32), T))
