# A strided 2-D convolution with bias as one product per image on the cube, over an im2col matrix
# in GM: col[n] is [K + 1, OH * OW], row (ci, kh, kw) holding the input value each output pixel
# weighs by that tap, and a last row of ones; wb is the weight read as [CO, K] with the bias as
# its last column, so y[n] = wb @ col[n] is the convolution plus the bias.
# im2col: each (image, channel, kernel row, block of TH output rows) loads the input rows those
# outputs read (every S-th row: a strided slice, the copy's row stride) over the padded width,
# once, 0.0 outside the image (pad=); each of the KW taps is then every S-th column of that tile
# from column kw (a strided tile slice, a Gather on chip), stored as TH rows of col through a view.
kernel conv_standard_2d(x: gm f32[N, CI, H, W], conv1_weight: gm f32[CO, CI, KH, KW], conv1_bias: gm f32[CO]) -> (
        y: gm f32[N, CO, OH, OW]):
    const S = 4                     # the layer's stride and padding (fixed in the op's __init__)
    const PD = 2
    const K = CI * KH * KW
    const K1 = K + 1
    const P = OH * OW
    const SW = S * (OW - 1) + KW    # the input columns one output row reads, halo included
    const TH = 16
    const TM = 128
    const TN = 256
    const TK = 64
    scratch wb: f32[CO, K1]
    scratch col: f32[N, K1, P]
    colv = view(col, (N, K1, OH, OW))
    wv = view(conv1_weight, (CO, K))
    bv = view(conv1_bias, (CO, 1))
    yv = view(y, (N, CO, P))
    for co in parallel(CO):
        store(wb[co, 0:K], load(wv[co, :]))
        store(wb[co, K:K1], load(bv[co, :]))
    for n in parallel(N):
        store(col[n, K, :], full((P,), 1.0, f32))
    for n, ci, kh, hb in parallel(N, CI, KH, cdiv(OH, TH)):
        oh = hb * TH
        r = oh * S + kh - PD
        t = load(x[n, ci, r:r + S * TH:S, 0 - PD:SW - PD], pad=0.0)
        for kw in range(KW):
            k = (ci * KH + kh) * KW + kw
            store(colv[n, k, oh:oh + TH, :], t[:, kw:kw + S * (OW - 1) + 1:S])
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(P, TN)):
        m = i * TM
        q = j * TN
        a = load(wb[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(col[n, 0:TK, q:q + TN], space=l1))
        for k in range(TK, K1, TK):
            a = load(wb[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(col[n, k:k + TK, q:q + TN], space=l1))
        store(yv[n, m:m + TM, q:q + TN], acc)
