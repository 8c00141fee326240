# y: each column of x, a strided load (300 elements: two chunks), is stored as a row;
# z: each row of x, tiled with a tail, is stored as a strided column piece
# w: every row of x is added atomically to the columns w[:, 0] (tripled) and w[:, 1] (doubled)
kernel transpose(x: gm f32[R, C]) -> (y: gm f32[C, R], z: gm f32[C, R], w: gm f32[C, 2]):
    const T = 16
    for j in parallel(C):
        store(y[j, :], load(x[:, j]) * 2.0)
    for i in parallel(R):
        for j in range(0, C, T):
            store(z[j:j + T, i], load(x[i, j:j + T]) + 1.0)
    for c in parallel(C):
        store(w[c, :], zeros((2,), f32))
    for i in parallel(R):
        t = load(x[i, :])
        atomic_add(w[:, 0], t * 3.0)
        atomic_add(w[:, 1], t * 2.0)
