# ELU with the group's alpha, scale and input_scale (forward arguments, bound in order):
# scale * x for x > 0, else alpha * scale * expm1(input_scale * x). In f32, one cast back to
# T. alpha * scale is taken first, as the reference does: with a large alpha, alpha * expm1
# alone can overflow f32 where the scaled result does not. expm1 as torch computes it, without
# the cancellation of exp(u) - 1 near 0 (a large alpha * scale shows it): a Taylor polynomial
# below |u| = 0.1.
kernel elu[T: (f16, bf16, f32)](x: gm T[*S], alpha: f32, scale: f32, input_scale: f32) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        t = cast(load(x[b * TS:b * TS + TS]), f32)
        u = minimum(t, 0.0) * input_scale
        em1 = where(abs(u) < 0.1, u * (1.0 + u * (0.5 + u * (0.16666666666666666 + u * (0.041666666666666664 + u * 0.008333333333333333)))), exp(u) - 1.0)
        store(y[b * TS:b * TS + TS], cast(where(t > 0.0, t * scale, alpha * scale * em1), T))
