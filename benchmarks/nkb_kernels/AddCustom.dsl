# input1 + input2 in their dtype (one rounding, as torch's).
kernel add[T: (f16, bf16, f32)](input1: gm T[*S], input2: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], load(input1[b * TS:b * TS + TS]) + load(input2[b * TS:b * TS + TS]))
