# ReLU for every group: T is the group's dtype, S the element count of any rank. max(x, 0) is
# exact in every dtype, so the math stays in T (no cast).
kernel relu[T: (f16, bf16, f32)](x: gm T[*S]) -> (y: gm T[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], maximum(load(x[b * TS:b * TS + TS]), 0.0))
