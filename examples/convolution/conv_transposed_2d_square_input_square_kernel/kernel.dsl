# A transposed 2-D convolution (stride 1, no padding, no bias) as tap products on the cube: output
# pixel (oh, ow) weighs input pixel (oh - kh, ow - kw) by tap (kh, kw), 0.0 outside the image.
# The image comes channel-first ([N, CI, H, W]: its channels a 1024 x 1024 plane apart at the MKB
# shape, past what the cube's copies take), so vector phases first lay it out channel-last in a
# scratch with a border of KH - 1 zero rows and KW - 1 zero columns on each side (xt[n, hp, wp, :]
# is input pixel (hp - KH + 1, wp - KW + 1)), the rows inside by transposed [CI, TL] blocks, and
# the weight as [KH * KW, CO, CI] (a transposed convolution's weight is stored [CI, CO, KH, KW]).
# Then each tile of y, TM channels by TN columns of one output row (its rows a channel plane apart),
# is the nine taps' products of a weight tile and the block of xt the tap shifts, accumulated in L0C
# on the cube cores (docs/dsl.md, "Tap products"): no im2col matrix. One image at a time (a loop of
# phases): the vector cores lay out the next images while the cube cores compute this one's taps.
kernel conv_transposed_2d(x: gm f32[N, CI, H, W], conv_transpose2d_weight: gm f32[CI, CO, KH, KW]) -> (
        y: gm f32[N, CO, OH, OW]):
    const OH = H + KH - 1           # stride 1, no padding: each input pixel spreads over KH x KW
    const OW = W + KW - 1
    const KK = KH * KW
    const HP = H + 2 * KH - 2
    const WP = W + 2 * KW - 2
    const TL = 128
    const TM = 128
    const TN = 128
    scratch xt: f32[N, HP, WP, CI]
    scratch wt: f32[KK, CO, CI]
    wv = view(conv_transpose2d_weight, (CI, CO, KK))
    for co, t in parallel(CO, KK):
        store(wt[t, co, :], load(wv[:, co, t]))
    for n, r, wb in parallel(N, 2 * KH - 2, cdiv(WP, TL)):
        wp = wb * TL
        store(xt[n, r + r // (KH - 1) * H, wp:wp + TL, :], full((TL, CI), 0.0, f32))
    for n in range(N):
        for h, wb in parallel(H, cdiv(WP, TL)):
            wp = wb * TL
            store(xt[n, h + KH - 1, wp:wp + TL, :], transpose(load(x[n, :, h, wp + 1 - KW:wp + 1 - KW + TL], pad=0.0)))
        for oh, i, j in parallel(OH, cdiv(CO, TM), cdiv(OW, TN)):
            m = i * TM
            q = j * TN
            a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)
            acc = matmul(a, load(xt[n, oh + KH - 1, q + KW - 1:q + KW - 1 + TN, :], space=l1, pad=0.0),
                         transpose_b=True)
            for t in range(1, KK):
                a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)
                acc = acc + matmul(a, load(xt[n, oh + KH - 1 - t // KW, q + KW - 1 - t % KW:q + KW - 1 - t % KW + TN, :],
                                           space=l1, pad=0.0), transpose_b=True)
            store(y[n, m:m + TM, oh, q:q + TN], acc)
