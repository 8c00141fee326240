# -x of each tensor of the list (split per tensor), exact in its dtype.
kernel foreach_neg[T: (f16, bf16, f32)](inputs: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], -load(inputs[b * TS:b * TS + TS]))
