kernel mse(p: gm f32[N, M], t: gm f32[N, M]) -> (loss: gm f32[]):
    const T = 8192
    scratch part: f32[N]
    for i in parallel(N):
        acc = 0.0
        for j in range(0, M, T):
            d = load(p[i, j:j + T]) - load(t[i, j:j + T])
            acc = acc + sum(d * d)
        store(part[i], acc)
    store(loss, sum(load(part)) / (N * M))
