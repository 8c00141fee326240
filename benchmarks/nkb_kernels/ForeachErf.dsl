# erf(x) of each tensor of the list (split per tensor: one kernel run each), in f32, one rounding back.
kernel foreach_erf[T: (f16, bf16, f32)](inputs: gm T[*S]) -> (y: gm T[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        t = cast(load(inputs[b * TS:b * TS + TS]), f32)
        store(y[b * TS:b * TS + TS], cast(erf(t), T))
