# Mish, x * tanh(softplus(x)), for every group: T is the group's dtype, S the element count of
# any rank (1 for a 0-d tensor, 0 for an empty one: no tile, no work). Tiles of TS elements, the
# math in f32 (exp(x) overflows past 88: softplus(x) is x there) and one rounding cast back to T.
kernel mish[T: (f16, bf16, f32)](x: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        t = cast(load(x[b * TS:b * TS + TS]), f32)
        sp = where(t > 20.0, t, log(1.0 + exp(minimum(t, 20.0))))
        store(y[b * TS:b * TS + TS], cast(t * tanh(sp), T))
