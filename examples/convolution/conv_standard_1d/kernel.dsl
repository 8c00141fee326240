# A 1-D convolution (stride 1, no padding, no bias) as tap products on the cube: y[n, co, l] is the
# sum over the KW taps of wt[t]'s [CO, CI] weights times the sequence's [CI] channels at step l + t.
# The sequence comes channel-first ([N, CI, L]: its channels 131,072 floats apart at the MKB shape,
# past what the cube's copies take), so a vector phase first lays it out channel-last in a scratch,
# [TL, CI] blocks of transposed [CI, TL] tiles, and another the weights as [KW, CO, CI]; then each
# [TM, TN] tile of y is the three taps' products of a weight tile and the block of xt the tap
# shifts, accumulated in L0C on the cube cores (docs/dsl.md, "Tap products"): no im2col matrix.
# 128 x 128 tiles of 64 channels take all of L0A and L0B (two slots each). One sequence at a time
# (a loop of phases): the vector cores lay out the next sequences while the cube cores compute.
kernel conv_standard_1d(x: gm f32[N, CI, L], conv1d_weight: gm f32[CO, CI, KW]) -> (y: gm f32[N, CO, LO]):
    const LO = L - KW + 1
    const TL = 128
    const TM = 128
    const TN = 128
    scratch xt: f32[N, L, CI]
    scratch wt: f32[KW, CO, CI]
    for co, kw in parallel(CO, KW):
        store(wt[kw, co, :], load(conv1d_weight[co, :, kw]))
    for n in range(N):
        for lb in parallel(cdiv(L, TL)):
            l = lb * TL
            store(xt[n, l:l + TL, :], transpose(load(x[n, :, l:l + TL])))
        for i, j in parallel(cdiv(CO, TM), cdiv(LO, TN)):
            m = i * TM
            q = j * TN
            a = load(wt[0, m:m + TM, :], space=l1, pad=0.0)
            acc = matmul(a, load(xt[n, q:q + TN, :], space=l1, pad=0.0), transpose_b=True)
            for t in range(1, KW):
                a = load(wt[t, m:m + TM, :], space=l1, pad=0.0)
                acc = acc + matmul(a, load(xt[n, q + t:q + t + TN, :], space=l1, pad=0.0), transpose_b=True)
            store(y[n, m:m + TM, q:q + TN], acc)
