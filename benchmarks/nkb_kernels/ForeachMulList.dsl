# x * y for each pair of tensors of the two lists (split per pair: one kernel run each).
kernel foreach_mul_list[T: (f16, bf16, f32, i32)](inputs1: gm T[*S], inputs2: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        a = load(inputs1[b * TS:b * TS + TS])
        c = load(inputs2[b * TS:b * TS + TS])
        store(y[b * TS:b * TS + TS], a * c)
