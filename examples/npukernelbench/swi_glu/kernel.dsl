# SwiGLU: a = x[..., :H], b = x[..., H:] with H half of the last axis; silu(a) * b in f32. x binds
# by name (dim, an int, is left out: every group splits the last axis). B rows of any rank.
kernel swi_glu[T: (f16, bf16, f32)](x: gm T[*B, N2]) -> (y: gm T[*B, H]):
    for r in parallel(B):
        a = cast(load(x[r, 0:H]), f32)
        b = cast(load(x[r, H:N2]), f32)
        store(y[r, :], cast(a * sigmoid(a) * b, T))
