# Causal multi-head self-attention (nn.MultiheadAttention with a causal mask) in eight phases over
# GM scratch:
#   1 (cube):   qkv = x Win^T, the packed [3E, E] projection read transposed in place;
#   2 (vector): q, k and v of each head split out of qkv (read as [B, L, 3, H, HD] through a view,
#               [RH, HD] blocks of rows) with the projection's bias added, q scaled by 1/sqrt(HD) (as
#               torch scales it, before the product);
#   3 (cube):   scores S[b, h] = q[b, h] k[b, h]^T;
#   4 (vector): the positions after each row's own masked to -inf (tril of a
#               tile of ones in the tile's frame: row r + i keeps columns j <= r + i), softmaxed in
#               place in [RB, L] blocks of whole rows (a block past the last row is padded with zeros,
#               so it keeps the mask's RB rows; only its rows inside S are stored);
#   5 (cube):   o[b, h] = S[b, h] v[b, h];
#   6 (vector): the heads merged back into [B, L, E] (through a view, [RH, HD] blocks);
#   7 (cube), 8 (vector): y = o Wout^T, then the output bias added in place.
# Rows of L <= 8192 scores are softmaxed whole.
kernel causal_attention(x: gm f32[B, L, E], mha_in_proj_weight: gm f32[E3, E], mha_in_proj_bias: gm f32[E3],
                        mha_out_proj_weight: gm f32[E, E], mha_out_proj_bias: gm f32[E], num_heads: i32) -> (
        y: gm f32[B, L, E]):
    const TM = 128
    const TN = 128
    const TK = 64
    const H = num_heads
    const HD = E // H
    const RB = minimum(L, maximum(1, 8192 // L))
    const RE = maximum(1, 8192 // E)
    const RH = maximum(1, 4096 // HD)
    scratch qkv: f32[B, L, E3]
    scratch qh: f32[B, H, L, HD]
    scratch kh: f32[B, H, L, HD]
    scratch vh: f32[B, H, L, HD]
    scratch att: f32[B, H, L, L]
    scratch oh: f32[B, H, L, HD]
    scratch o: f32[B, L, E]
    pv = view(qkv, (B, L, 3, H, HD))
    pb = view(mha_in_proj_bias, (3, H, HD))
    ov = view(o, (B, L, H, HD))
    for z, i, j in parallel(B, cdiv(L, TM), cdiv(E3, TN)):
        m = i * TM
        n = j * TN
        a = load(x[z, m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(mha_in_proj_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, E, TK):
            a = load(x[z, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(a, load(mha_in_proj_weight[n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(qkv[z, m:m + TM, n:n + TN], acc)
    for b, h, lb in parallel(B, H, cdiv(L, RH)):
        l = lb * RH
        store(qh[b, h, l:l + RH, :], (load(pv[b, l:l + RH, 0, h, :]) + load(pb[0, h, :])) * (1.0 / sqrt(HD * 1.0)))
        store(kh[b, h, l:l + RH, :], load(pv[b, l:l + RH, 1, h, :]) + load(pb[1, h, :]))
        store(vh[b, h, l:l + RH, :], load(pv[b, l:l + RH, 2, h, :]) + load(pb[2, h, :]))
    for b, h, i, j in parallel(B, H, cdiv(L, TM), cdiv(L, TN)):
        m = i * TM
        n = j * TN
        a = load(qh[b, h, m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(kh[b, h, n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, HD, TK):
            a = load(qh[b, h, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(a, load(kh[b, h, n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(att[b, h, m:m + TM, n:n + TN], acc)
    for b, h, rb in parallel(B, H, cdiv(L, RB)):
        r = rb * RB
        t = load(att[b, h, r:r + RB, :], pad=0.0)
        keep = tril(full((RB, L), 1.0, f32), diagonal=r) > 0.5
        t = where(keep, t, -inf)
        e = exp(t - max(t, axis=1, keepdims=True))
        store(att[b, h, r:r + RB, :], e / sum(e, axis=1, keepdims=True))
    for b, h, i, j in parallel(B, H, cdiv(L, TM), cdiv(HD, TN)):
        m = i * TM
        n = j * TN
        p = load(att[b, h, m:m + TM, 0:TK], space=l1)
        acc = matmul(p, load(vh[b, h, 0:TK, n:n + TN], space=l1))
        for kk in range(TK, L, TK):
            p = load(att[b, h, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(p, load(vh[b, h, kk:kk + TK, n:n + TN], space=l1))
        store(oh[b, h, m:m + TM, n:n + TN], acc)
    for b, h, lb in parallel(B, H, cdiv(L, RH)):
        l = lb * RH
        store(ov[b, l:l + RH, h, :], load(oh[b, h, l:l + RH, :]))
    for z, i, j in parallel(B, cdiv(L, TM), cdiv(E, TN)):
        m = i * TM
        n = j * TN
        a = load(o[z, m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(mha_out_proj_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, E, TK):
            a = load(o[z, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(a, load(mha_out_proj_weight[n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(y[z, m:m + TM, n:n + TN], acc)
    for b, rb in parallel(B, cdiv(L, RE)):
        r = rb * RE
        store(y[b, r:r + RE, :], load(y[b, r:r + RE, :]) + load(mha_out_proj_bias))
