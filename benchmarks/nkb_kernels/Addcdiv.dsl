# input_data + input_x1 / input_x2 * value (value a 0-d tensor), in f32, one rounding back.
kernel addcdiv[T: (f16, bf16, f32)](input_data: gm T[*S], input_x1: gm T[*S], input_x2: gm T[*S],
        value: gm T[*V]) -> (y: gm T[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        v = cast(load(value[0]), f32)
        d = cast(load(input_data[b * TS:b * TS + TS]), f32)
        p = cast(load(input_x1[b * TS:b * TS + TS]), f32) / cast(load(input_x2[b * TS:b * TS + TS]), f32)
        store(y[b * TS:b * TS + TS], cast(d + p * v, T))
