# 1 where x is finite, else 0, in x's dtype: |x| < inf is false for inf and NaN alike.
kernel is_finite[T: (f16, f32)](x: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], cast(abs(load(x[b * TS:b * TS + TS])) < inf, T))
