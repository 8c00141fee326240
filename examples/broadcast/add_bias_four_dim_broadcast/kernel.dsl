# x + bias[c] over NCHW. Through views, x is [N, C, P] with P = H * W positions per plane and the
# bias a [C, 1] column, so a unit is a [CB, TP] block of CB channels' planes (TP <= 8192 positions,
# CB * TP <= 8192 elements) plus the CB-value slice of the bias column, added per row (AddColVec:
# each row's bias on the scalar unit, one Adds). At the MKB shape (8 x 512 x 32 x 32) a unit is 8
# whole planes of 1024 (32 KiB), 512 units over 48 cores: 43.7 us modeled, where one 4 KiB plane per
# unit with its bias read from GM for it took 82.6 us (50.3 once the lowering read the bias whole).
kernel add_bias_4d(x: gm f32[N, C, H, W], bias: gm f32[C]) -> (y: gm f32[N, C, H, W]):
    const P = H * W
    const TP = minimum(P, 8192)
    const CB = maximum(1, minimum(C, 8192 // TP))
    xv = view(x, (N, C, P))
    yv = view(y, (N, C, P))
    bc = view(bias, (C, 1))
    for n, cb, pb in parallel(N, cdiv(C, CB), cdiv(P, TP)):
        c = cb * CB
        p = pb * TP
        store(yv[n, c:c + CB, p:p + TP], load(xv[n, c:c + CB, p:p + TP]) + load(bc[c:c + CB, :]))
