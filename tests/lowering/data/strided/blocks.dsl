# y: sub-blocks of 4 rows x 128 columns with row gaps (tails in both axes, a row stride of W)
# z: 2-D tiles across the batch and height at one width position (both axes strided)
# u: 1-D columns along the height (stride W), tiled with a tail, as loads and stores
kernel blocks(x: gm f32[B, H, W]) -> (y: gm f32[B, H, W], z: gm f32[B, H, W], u: gm f32[B, H, W]):
    const T = 128
    const RB = 4
    const TH = 16
    for b, h in parallel(B, cdiv(H, RB)):
        for j in range(0, W, T):
            store(y[b, h * RB:h * RB + RB, j:j + T], load(x[b, h * RB:h * RB + RB, j:j + T]) * 2.0)
    for w in parallel(W):
        store(z[:, :, w], load(x[:, :, w]) + 1.0)
    for b, w in parallel(B, W):
        for h in range(0, H, TH):
            store(u[b, h:h + TH, w], load(x[b, h:h + TH, w]) * 3.0)
