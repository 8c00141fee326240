# input1 <= input2 element-wise as bool; the comparison is exact in the inputs' dtype.
kernel less_equal[T: (f16, f32)](input1: gm T[*S], input2: gm T[*S]) -> (y: gm bool[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], load(input1[b * TS:b * TS + TS]) <= load(input2[b * TS:b * TS + TS]))
