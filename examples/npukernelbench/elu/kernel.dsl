# ELU with the group's alpha, scale and input_scale (forward arguments, bound in order):
# scale * x for x > 0, else alpha * scale * (exp(input_scale * x) - 1). In f32, one cast back to
# T. alpha * scale is taken first, as the reference does: with a large alpha, alpha * (exp - 1)
# alone can overflow f32 where the scaled result does not.
kernel elu[T: (f16, bf16, f32)](x: gm T[*S], alpha: f32, scale: f32, input_scale: f32) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        t = cast(load(x[b * TS:b * TS + TS]), f32)
        neg = alpha * scale * (exp(minimum(t, 0.0) * input_scale) - 1.0)
        store(y[b * TS:b * TS + TS], cast(where(t > 0.0, t * scale, neg), T))
