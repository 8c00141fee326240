# 1 / sqrt(x) in f32, one rounding back to x's dtype.
kernel rsqrt[T: (f16, bf16, f32)](input: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], cast(rsqrt(cast(load(input[b * TS:b * TS + TS]), f32)), T))
