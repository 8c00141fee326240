# A strided convolution with bias as one product per image on the cube, through an im2col matrix in
# GM: y[n] (as [CO, OH * OW]) = [W | b] @ [col[n]; 1], where col[n][(ci, kh, kw), (oh, ow)] is the
# padded input at (ci, oh * stride + kh - padding, ow * stride + kw - padding).
#   phase 1: the weight read as [CO, CI * KH * KW] (a view) and the bias copied into wb [CO, K + 1];
#   phase 2: im2col, one padded input row per (image, channel, kernel row, output row), loaded with
#            its halo (pad=0.0 outside the image), each kernel column's strided samples gathered
#            (gather by ow * stride + kw) and stored as OW values of col;
#   phase 3: the last row of col set to ones, so the product adds the bias (no epilogue pass);
#   phase 4 (cube): per image, [CO, K + 1] @ [K + 1, OH * OW] written through a view of y.
# At MKB's shape col takes 1.1 GiB of scratch (256 x 364 x 3025 f32).
kernel conv_standard_2d(x: gm f32[N, CI, H, W], conv1_weight: gm f32[CO, CI, KH, KW], conv1_bias: gm f32[CO],
                        stride: i32 = 4, padding: i32 = 2) -> (y: gm f32[N, CO, OH, OW]):
    const TM = 128
    const TN = 256
    const TK = 64
    const K = CI * KH * KW
    const K1 = K + 1
    const P = OH * OW
    scratch col: f32[N, K1, P]
    scratch wb: f32[CO, K1]
    wv = view(conv1_weight, (CO, K))
    yv = view(y, (N, CO, P))
    for c in parallel(CO):
        store(wb[c, 0:K], load(wv[c, :]))
        store(wb[c, K], load(conv1_bias[c]))
    for n, ci, kh, oh in parallel(N, CI, KH, OH):
        ih = oh * stride + kh - padding
        row = load(x[n, ci, ih:ih + 1, 0 - padding:W + padding], pad=0.0)
        r = row[0]
        for kw in range(KW):
            idx = iota(OW, i32) * stride + kw
            store(col[n, (ci * KH + kh) * KW + kw, oh * OW:oh * OW + OW], gather(r, idx))
    for n in parallel(N):
        store(col[n, K, :], 1.0)
    for z, i, j in parallel(N, cdiv(CO, TM), cdiv(P, TN)):
        m = i * TM
        q = j * TN
        a = load(wb[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(col[z, 0:TK, q:q + TN], space=l1))
        for k in range(TK, K1, TK):
            a = load(wb[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(col[z, k:k + TK, q:q + TN], space=l1))
        store(yv[z, m:m + TM, q:q + TN], acc)
