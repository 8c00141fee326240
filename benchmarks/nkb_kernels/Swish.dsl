# Swish: x * sigmoid(scale * x), in f32.
kernel swish[T: (f16, bf16, f32)](input1: gm T[*S], scale: f32) -> (y: gm T[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        t = cast(load(input1[b * TS:b * TS + TS]), f32)
        store(y[b * TS:b * TS + TS], cast(t * sigmoid(t * scale), T))
