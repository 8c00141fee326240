# A strided 2-D convolution with bias (stride 4, padding 2) as tap products on the cube, one tap per
# kernel row: no im2col matrix. Output pixel (oh, ow) weighs the padded input row S * oh + kh at the
# columns S * ow + kw. Each padded input row is laid out once as planes of patches along the width:
# plane kw * CI + ci of residue r holds, at (i, ow), input channel ci at padded row S * i + r and
# column S * ow + kw (the width's kernel folded into the channels: 3.3 times the input with the
# planes below, where the im2col matrix is 7.3 times), then a plane of ones (its weight the bias at
# kernel row 0) and zero planes up to KC = 40 (the cube's K in whole fractals of 8; no weight of 0
# meets an input value the convolution does not weigh). Kernel row kh reads the planes of
# residue kh % S from position (oh + kh // S) * OW + ow: a block of every plane, rows P apart, read
# by the cube as stored (docs/dsl.md, "Tap products"). The weight is [KH, CO, KC] to match.
# The weights are read one output channel a copy and transposed on chip (11 copies of 3 values per
# channel and kernel row each waited out the GM latency: 250 us before the first tap). Per group of
# G images (a loop of phases) the vector cores lay out the next groups' planes, the ones and zero
# planes among them, while the cube cores compute this group's tiles of y: 96 channels by 128
# output pixels, 11 taps each.
kernel conv_standard_2d(x: gm f32[N, CI, H, W], conv1_weight: gm f32[CO, CI, KH, KW], conv1_bias: gm f32[CO]) -> (
        y: gm f32[N, CO, OH, OW]):
    const S = 4                     # the layer's stride and padding (fixed in the op's __init__)
    const PD = 2
    const OH = (H + 2 * PD - KH) // S + 1
    const OW = (W + 2 * PD - KW) // S + 1
    const KC = 40
    const I = cdiv(H + 2 * PD, S)   # padded rows of one residue
    const P = I * OW                # positions of a plane
    const Q = OH * OW
    const G = 16
    const TH = 57
    const TM = 96
    const TN = 128
    scratch wt: f32[KH, CO, KC]
    scratch xt: f32[N, S, KC, P]
    xtv = view(xt, (N, S, KC, I, OW))
    yv = view(y, (N, CO, Q))
    bv = view(conv1_bias, (CO, 1))
    const KK = KH * KW
    wv = view(conv1_weight, (CO, CI, KK))
    for co in parallel(CO):
        tt = transpose(load(wv[co, :, :]))
        for kh in range(KH):
            store(wt[kh, co, KW * CI:KC], full((KC - KW * CI,), 0.0, f32))
            for kw in range(KW):
                store(wt[kh, co, kw * CI:kw * CI + CI], tt[kh * KW + kw, :])
    for co in parallel(CO):
        store(wt[0, co, KW * CI:KW * CI + 1], load(bv[co, :]))
    for g in range(0, N, G):
        for gn, ci, r, ib in parallel(minimum(G, N - g), CI, S, cdiv(I, TH)):
            n = g + gn
            i0 = ib * TH
            t = load(x[n, ci, S * i0 + r - PD:S * (i0 + TH) + r - PD:S, 0 - PD:W + PD], pad=0.0)
            for kw in range(KW):
                store(xtv[n, r, kw * CI + ci, i0:i0 + TH, :], t[:, kw:kw + S * (OW - 1) + 1:S])
        for gn, r, c in parallel(minimum(G, N - g), S, KC - KW * CI):   # the plane of ones, then zero planes
            store(xt[g + gn, r, KW * CI + c, :], full((P,), 0.0, f32) + cast(1 - minimum(c, 1), f32))
        for gn, i, j in parallel(minimum(G, N - g), cdiv(CO, TM), cdiv(Q, TN)):
            n = g + gn
            m = i * TM
            q = j * TN
            a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)
            acc = matmul(a, load(xt[n, 0, :, q:q + TN], space=l1, pad=0.0))
            for t in range(1, KH):
                a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)
                acc = acc + matmul(a, load(xt[n, t % S, :, q + t // S * OW:q + t // S * OW + TN], space=l1, pad=0.0))
            store(yv[n, m:m + TM, q:q + TN], acc)
