# A 3-D convolution (stride 1, no padding, no bias) as one product per volume on the cube, over an
# im2col matrix in GM: col[n] is [CI * KD * KH * KW, OD * OH * OW], row (ci, kd, kh, kw) holding
# the input voxel each output voxel weighs by that tap, so y[n] = W col[n] with the weight
# [CO, CI, KD, KH, KW] read as the matrix [CO, CI * KD * KH * KW] (a view).
# im2col: each (volume, channel, kernel plane, kernel row, output plane) loads the OH input rows
# those outputs read, whole, once; tap kw is the slice of that tile from column kw, stored as one
# output plane of col through a view.
kernel conv_standard_3d(x: gm f32[N, CI, D, H, W], conv3d_weight: gm f32[CO, CI, KD, KH, KW]) -> (
        y: gm f32[N, CO, OD, OH, OW]):
    const OD = D - KD + 1
    const OH = H - KH + 1
    const OW = W - KW + 1
    const K = CI * KD * KH * KW
    const P = OD * OH * OW
    const TM = 128
    const TN = 256
    const TK = 64
    scratch col: f32[N, K, P]
    colv = view(col, (N, K, OD, OH, OW))
    wv = view(conv3d_weight, (CO, K))
    yv = view(y, (N, CO, P))
    for n, ci, kd, kh, od in parallel(N, CI, KD, KH, OD):
        t = load(x[n, ci, od + kd, kh:kh + OH, :])
        for kw in range(KW):
            k = ((ci * KD + kd) * KH + kh) * KW + kw
            store(colv[n, k, od, :, :], t[:, kw:kw + OW])
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(P, TN)):
        m = i * TM
        q = j * TN
        a = load(wv[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(col[n, 0:TK, q:q + TN], space=l1))
        for k in range(TK, K, TK):
            a = load(wv[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(col[n, k:k + TK, q:q + TN], space=l1))
        store(yv[n, m:m + TM, q:q + TN], acc)
