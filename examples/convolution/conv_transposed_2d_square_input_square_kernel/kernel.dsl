# A transposed 2-D convolution (stride 1, no padding, no bias) as one product per image on the
# cube, over an im2col matrix in GM. Output pixel (oh, ow) weighs input pixel (oh - kh, ow - kw)
# by tap (kh, kw), 0.0 where that pixel is outside the image, so col[n] is [CI * KH * KW, OH * OW],
# row (ci, kh, kw) holding channel ci shifted down by kh and right by kw, and y[n] = wt @ col[n]
# with wt[co, (ci, kh, kw)] = weight[ci, co, kh, kw]: the weight's first two axes swapped, once,
# into a scratch (a transposed convolution's weight is stored [CI, CO, KH, KW]).
# im2col: each (image, channel, kernel row, block of TH output rows) loads the TH input rows those
# outputs read, widened by KW - 1 zero columns on each side (pad=), once; tap kw is the slice of
# that tile starting KW - 1 - kw columns in, stored as TH rows of col through a view.
kernel conv_transposed_2d(x: gm f32[N, CI, H, W], conv_transpose2d_weight: gm f32[CI, CO, KH, KW]) -> (
        y: gm f32[N, CO, OH, OW]):
    const KK = KH * KW
    const K = CI * KK
    const P = OH * OW
    const TH = 8
    const TM = 128
    const TN = 256
    const TK = 64
    scratch wt: f32[CO, K]
    scratch col: f32[N, K, P]
    colv = view(col, (N, K, OH, OW))
    wv = view(conv_transpose2d_weight, (CI, CO, KK))
    yv = view(y, (N, CO, P))
    for ci in parallel(CI):
        store(wt[:, ci * KK:ci * KK + KK], load(wv[ci, :, :]))
    for n, ci, kh, hb in parallel(N, CI, KH, cdiv(OH, TH)):
        oh = hb * TH
        t = load(x[n, ci, oh - kh:oh - kh + TH, 1 - KW:W + KW - 1], pad=0.0)
        for kw in range(KW):
            k = (ci * KH + kh) * KW + kw
            store(colv[n, k, oh:oh + TH, :], t[:, KW - 1 - kw:KW - 1 - kw + OW])
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(P, TN)):
        m = i * TM
        q = j * TN
        a = load(wt[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(col[n, 0:TK, q:q + TN], space=l1))
        for k in range(TK, K, TK):
            a = load(wt[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(col[n, k:k + TK, q:q + TN], space=l1))
        store(yv[n, m:m + TM, q:q + TN], acc)
