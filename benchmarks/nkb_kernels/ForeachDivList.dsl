# x / y for each pair of tensors of the two lists (split per pair: one kernel run each).
kernel foreach_div_list[T: (f16, bf16, f32)](x1: gm T[*S], x2: gm T[*S]) -> (y: gm T[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        a = load(x1[b * TS:b * TS + TS])
        c = load(x2[b * TS:b * TS + TS])
        store(y[b * TS:b * TS + TS], cast(cast(a, f32) / cast(c, f32), T))
