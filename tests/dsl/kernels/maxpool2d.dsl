# max_pool2d(kernel 4, stride 1, padding 1): halo rows/cols come from a padded load
kernel maxpool(x: gm f32[N, C, H, W]) -> (y: gm f32[N, C, HO, WO]):
    const TH = 8
    for n, c in parallel(N, C):
        for h in range(0, HO, TH):
            t = load(x[n, c, h - 1:h + TH + 2, -1:W + 1], pad=-inf)
            store(y[n, c, h:h + TH, :], window_max(t, kernel=(4, 4), stride=(1, 1)))
