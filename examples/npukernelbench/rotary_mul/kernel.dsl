# Rotary embedding: x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1) with x1, x2 the
# halves of the last axis. All three tensors have the group's shape: B rows of D (any leading
# rank). Each half of the output row from the halves of x, in f32.
kernel rotary_mul[T: (f16, bf16, f32)](x: gm T[*B, D], cos: gm T[*B, D], sin: gm T[*B, D]) -> (y: gm T[*B, D]):
    const H = D // 2
    for r in parallel(B):
        x1 = cast(load(x[r, 0:H]), f32)
        x2 = cast(load(x[r, H:D]), f32)
        store(y[r, 0:H], cast(x1 * cast(load(cos[r, 0:H]), f32) - x2 * cast(load(sin[r, 0:H]), f32), T))
        store(y[r, H:D], cast(x2 * cast(load(cos[r, H:D]), f32) + x1 * cast(load(sin[r, H:D]), f32), T))
