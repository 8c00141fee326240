# |x| of each tensor of the list (the list is split per tensor: one kernel run each).
kernel foreach_abs[T: (f16, bf16, f32)](inputs: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], abs(load(inputs[b * TS:b * TS + TS])))
