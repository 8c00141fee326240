# FastGelu: x * exp(0.851 (x - |x|)) / (1 + exp(-1.702 |x|)), in f32.
kernel fast_gelu[T: (f16, bf16, f32)](input: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        t = cast(load(input[b * TS:b * TS + TS]), f32)
        a = abs(t)
        store(y[b * TS:b * TS + TS], cast(t * exp((t - a) * 0.851) / (exp(a * -1.702) + 1.0), T))
