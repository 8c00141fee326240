# two partial sums per core into the columns of one 2-D scratch tensor; after the phase,
# each column is read back as a (strided) 1-D tile
kernel scale_col(x: gm f32[R, C]) -> (y: gm f32[R, C]):
    scratch part: f32[CORES, 2]
    for i in parallel(CORES):
        a = 0.0
        b = 0.0
        for r in range(i * R // CORES, (i + 1) * R // CORES):
            t = load(x[r, :])
            a = a + sum(t)
            b = b + sum(t * t)
        store(part[i, 0], a)
        store(part[i, 1], b)
    for q in parallel(R):
        s = sum(load(part[:, 0])) / sum(load(part[:, 1]))
        store(y[q, :], load(x[q, :]) * s)
