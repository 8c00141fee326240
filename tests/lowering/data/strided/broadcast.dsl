# y: a scalar stored to each row, then (on one core) a loaded column stored as it is and a
#    scalar stored to a column (strided regions)
# z: one loaded row stored to every row of the tensor; w: loaded tiles stored as they are
# v: a left halo of 10 elements (wider than a 32-byte block) loaded with pad=
kernel broadcast(x: gm f32[R, C]) -> (y: gm f32[R, C], z: gm f32[R, C], w: gm f32[R, C], v: gm f32[R, C]):
    const T = 128
    const TI = T + 20
    for r in parallel(R):
        store(y[r, :], 1.0)
        store(w[r, :], load(x[r, :]))
        for j in range(0, C, T):
            t = load(x[r, j - 10:j - 10 + TI], pad=0.0)
            store(v[r, j:j + T], window_avg(t, kernel=(21,), stride=(1,)) * 7.0)
    store(y[:, 0], load(x[:, 0]))
    store(y[:, C - 1], 2.0)
    store(z, load(x[0, :]))
