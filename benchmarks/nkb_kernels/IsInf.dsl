# 1 where x is +inf or -inf, else 0, in x's dtype (NaN is not infinite).
kernel is_inf[T: (f16, f32)](x: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], cast(abs(load(x[b * TS:b * TS + TS])) == inf, T))
