# Residual add then RMSNorm, two outputs: h = x + residual (rounded to T, as torch adds in T) and
# h * rsqrt(mean(h^2) + eps) * weight computed in f32 from that rounded h. B rows of any rank.
kernel fused_add_rms_norm[T: (f16, bf16, f32)](x: gm T[*B, N], residual: gm T[*B, N], weight: gm T[N],
                                               eps: f32) -> (y: gm T[*B, N], h: gm T[*B, N]):
    for r in parallel(B):
        s = load(x[r, :]) + load(residual[r, :])
        store(h[r, :], s)
        hf = cast(s, f32)
        store(y[r, :], cast(hf * rsqrt(sum(hf * hf) / N + eps) * cast(load(weight), f32), T))
