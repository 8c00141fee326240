# SwiGLU along axis dim: x is read as [A, N2, B] around it (dim: i32 binds the op's dim argument);
# a is the first H of the N2 = 2 H rows, b the other H. Each of the A blocks of x is 2 * H * B
# elements in memory order, a's then b's, and each block of y is H * B: silu(a) * b in f32 runs
# over long contiguous tiles whichever axis dim names. H, y's extent on that axis, is a const of
# x's, so the exported operator's InferShape computes it.
kernel swi_glu[T: (f16, bf16, f32)](x: gm T[*A(dim), N2, *B], dim: i32) -> (y: gm T[*A, H, *B]):
    const H = N2 // 2
    const TS = 4096
    const HB = H * B
    xv = view(x, (A, 2, HB))
    yv = view(y, (A, HB))
    for i, j in parallel(A, cdiv(HB, TS)):
        c = j * TS
        a = cast(load(xv[i, 0, c:c + TS]), f32)
        b = cast(load(xv[i, 1, c:c + TS]), f32)
        store(yv[i, c:c + TS], cast(a * sigmoid(a) * b, T))
