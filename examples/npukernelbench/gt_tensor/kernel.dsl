# x > y for every group, stored as bool. The comparison runs in the inputs' dtype (exact in
# each), so no cast; ties give False.
kernel gt_tensor[T: (f16, bf16, f32)](x: gm T[*S], y: gm T[*S]) -> (out: gm bool[*S]):
    const TS = 8192
    for b in parallel(cdiv(S, TS)):
        store(out[b * TS:b * TS + TS], load(x[b * TS:b * TS + TS]) > load(y[b * TS:b * TS + TS]))
