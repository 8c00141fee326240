# The gradient of hardsigmoid: grad_output / 6 where -3 < x < 3, else 0 (torch's bounds are
# strict). Both inputs have the group's shape, read as S elements; the division in f32 with one
# rounding to the result's dtype, as torch computes it. grad_output (T), x (U) and the result (O,
# torch's promotion of the two) each take their own dtype: a group may mix them.
kernel hardsigmoid_backward[T: (f16, bf16, f32), U: (f16, bf16, f32), O: (f16, bf16, f32)](
        grad_output: gm T[*S], x: gm U[*S]) -> (y: gm O[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        g = cast(load(grad_output[b * TS:b * TS + TS]), f32)
        t = cast(load(x[b * TS:b * TS + TS]), f32)
        inside = (t > -3.0) & (t < 3.0)
        store(y[b * TS:b * TS + TS], cast(where(inside, g / 6.0, 0.0), O))
