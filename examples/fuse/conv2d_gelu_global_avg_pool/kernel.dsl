# A convolution with a GELU and a global mean: an im2col matrix in GM scratch, then a product whose
# epilogue takes each tile's GELU and its sums over the pixels. Phase 1 puts the bias beside the
# weight ([CO, K + 1]) and zeroes y; phase 2 writes col[n], K + 1 rows (one per (input channel,
# kernel row, kernel column), then a row of ones, the bias's) by OH * OW pixels: each (image, channel,
# kernel row, block of TH output rows) loads the TH input rows those outputs read once, and each
# kernel column is a slice of that tile from column kw, stored as TH rows of col through a view.
# Phase 3 computes each [TM channels, TN pixels] tile of the product on the cube, and the vector
# unit takes its GELU and adds each channel's sum over the tile's pixels, scaled by 1 / P, into y
# (atomic_add: the pixel tiles of one image run on several cores). The [N, CO, P] convolution never
# reaches GM. phases.dsl is the same op with the convolution stored, then read for the GELU and mean.
kernel conv2d_gelu_global_avg_pool(x: gm f32[N, CI, H, W], conv_weight: gm f32[CO, CI, KH, KW],
                                   conv_bias: gm f32[CO]) -> (y: gm f32[N, CO]):
    const OH = H - KH + 1
    const OW = W - KW + 1
    const K = CI * KH * KW
    const K1 = K + 1
    const P = OH * OW
    const TH = maximum(1, 4096 // W)
    const T = 8192
    const TM = 64
    const TN = 128
    const TK = 64
    scratch wb: f32[CO, K1]
    scratch col: f32[N, K1, P]
    colv = view(col, (N, K1, OH, OW))
    wv = view(conv_weight, (CO, K))
    bv = view(conv_bias, (CO, 1))
    for co in parallel(CO):
        store(wb[co, 0:K], load(wv[co, :]))
        store(wb[co, K:K1], load(bv[co, :]))
        store(y[:, co], 0.0)
    for n in parallel(N):
        for j in range(0, P, T):
            store(col[n, K, j:j + T], full((T,), 1.0, f32))
    for n, ci, kh, hb in parallel(N, CI, KH, cdiv(OH, TH)):
        oh = hb * TH
        t = load(x[n, ci, oh + kh:minimum(oh + kh + TH, OH + kh), :])
        for kw in range(KW):
            k = (ci * KH + kh) * KW + kw
            store(colv[n, k, oh:oh + TH, :], t[:, kw:kw + OW])
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(P, TN)):
        m = i * TM
        q = j * TN
        a = load(wb[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(col[n, 0:TK, q:q + TN], space=l1))
        for k in range(TK, K1, TK):
            a = load(wb[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(col[n, k:k + TK, q:q + TN], space=l1))
        g = 0.5 * acc * (1.0 + erf(acc * 0.7071067811865476))
        atomic_add(y[n, m:m + TM], sum(g, axis=1) * (1.0 / P))
