# y: columns with one-element halos (padded strided loads, the first with a left halo), tiled
#    along the rows with a tail, stored as strided columns of their full unclamped length; the
#    tile's length T + 2 is read from h - 1:h + T + 1
# s: a bool column (one byte per element: packed on the scalar unit) selects a column of x
#    (h, a loop variable of the first phase, is assigned in the second once partitioned)
kernel halo(x: gm f32[R, C], mask: gm bool[R, C]) -> (y: gm f32[R, C], s: gm f32[C]):
    const T = 128
    for c in parallel(C):
        for h in range(0, R, T):
            t = load(x[h - 1:h + T + 1, c], pad=0.0)
            store(y[h:h + T, c], window_avg(t, kernel=(3,), stride=(1,)))
    for h in parallel(C):
        store(s[h], sum(where(load(mask[:, h]), load(x[:, h]), 0.0)))
