# A 1-D convolution (stride 1, no padding, no bias) as one product per sequence on the cube, over
# an im2col matrix in GM: col[n] is [CI * KW, LO], row (ci, kw) holding input channel ci shifted by
# kw, so y[n] = W col[n] with the weight [CO, CI, KW] read as the matrix [CO, CI * KW] (a view).
# im2col: each (sequence, channel, chunk of TL outputs) loads the TL + KW - 1 inputs the chunk
# reads once, and each tap is a slice of that tile from kw, stored as a row chunk of col.
kernel conv_standard_1d(x: gm f32[N, CI, L], conv1d_weight: gm f32[CO, CI, KW]) -> (y: gm f32[N, CO, LO]):
    const K = CI * KW
    const TL = 8192
    const TM = 128
    const TN = 256
    const TK = 64
    scratch col: f32[N, K, LO]
    wv = view(conv1d_weight, (CO, K))
    for n, ci, lb in parallel(N, CI, cdiv(LO, TL)):
        l = lb * TL
        t = load(x[n, ci, l:minimum(l + TL + KW - 1, L)])
        for kw in range(KW):
            store(col[n, ci * KW + kw, l:l + TL], t[kw:kw + minimum(TL, LO - l)])
    for n, i, j in parallel(N, cdiv(CO, TM), cdiv(LO, TN)):
        m = i * TM
        q = j * TN
        a = load(wv[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(col[n, 0:TK, q:q + TN], space=l1))
        for k in range(TK, K, TK):
            a = load(wv[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(col[n, k:k + TK, q:q + TN], space=l1))
        store(y[n, m:m + TM, q:q + TN], acc)
