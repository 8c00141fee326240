# Grouped-query attention in nine phases over GM scratch: four products on the cube, the rest on the
# vector units.
#   1-3 (cube): the projections Q = x Wq^T, K = x Wk^T, V = x Wv^T, the nn.Linear weights [out, in]
#               read transposed in place (transpose_b); each sequence is a batch item, the weights shared;
#   4 (vector): the heads split out and the biases added: qh [B, H, L, HD], and kh, vh repeated for
#               every query head of their group (head h reads key/value head h // (H / HKV), as
#               repeat_interleave does); the projections read as [B, L, H, HD] through views, each
#               head's [RH, HD] block of rows (RH = 4096 // HD) one strided copy;
#   5 (cube):   scores S[b, h] = qh[b, h] kh[b, h]^T;
#   6 (vector): S scaled by 1/sqrt(HD) and softmaxed in place, [RB, L] blocks of whole rows;
#   7 (cube):   oh[b, h] = S[b, h] vh[b, h];
#   8 (vector): the heads merged back in [RH, HD] blocks, o[b, l, h * HD + d] = oh[b, h, l, d];
#   9 (cube), 10 (vector): y = o Wo^T, then the output bias added in place.
# Rows of L <= 8192 scores are softmaxed whole; the bias phase takes [8192 // D, D] blocks of y.
kernel group_query_attention(x: gm f32[B, L, D], q_proj_weight: gm f32[D, D], q_proj_bias: gm f32[D],
                             k_proj_weight: gm f32[DKV, D], k_proj_bias: gm f32[DKV],
                             v_proj_weight: gm f32[DKV, D], v_proj_bias: gm f32[DKV],
                             out_proj_weight: gm f32[D, D], out_proj_bias: gm f32[D],
                             num_heads: i32, num_kv_heads: i32) -> (y: gm f32[B, L, D]):
    const TM = 128
    const TN = 128
    const TK = 64
    const H = num_heads
    const HKV = num_kv_heads
    const G = H // HKV
    const HD = D // H
    const RB = maximum(1, 8192 // L)
    const RD = maximum(1, 8192 // D)
    const RH = maximum(1, 4096 // HD)
    scratch q: f32[B, L, D]
    scratch k: f32[B, L, DKV]
    scratch v: f32[B, L, DKV]
    scratch qh: f32[B, H, L, HD]
    scratch kh: f32[B, H, L, HD]
    scratch vh: f32[B, H, L, HD]
    scratch att: f32[B, H, L, L]
    scratch oh: f32[B, H, L, HD]
    scratch o: f32[B, L, D]
    qv = view(q, (B, L, H, HD))
    kv = view(k, (B, L, HKV, HD))
    vv = view(v, (B, L, HKV, HD))
    ov = view(o, (B, L, H, HD))
    qb = view(q_proj_bias, (H, HD))
    kb = view(k_proj_bias, (HKV, HD))
    vb = view(v_proj_bias, (HKV, HD))
    for z, i, j in parallel(B, cdiv(L, TM), cdiv(D, TN)):
        m = i * TM
        n = j * TN
        a = load(x[z, m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(q_proj_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, D, TK):
            a = load(x[z, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(a, load(q_proj_weight[n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(q[z, m:m + TM, n:n + TN], acc)
    for z, i, j in parallel(B, cdiv(L, TM), cdiv(DKV, TN)):
        m = i * TM
        n = j * TN
        a = load(x[z, m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(k_proj_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, D, TK):
            a = load(x[z, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(a, load(k_proj_weight[n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(k[z, m:m + TM, n:n + TN], acc)
    for z, i, j in parallel(B, cdiv(L, TM), cdiv(DKV, TN)):
        m = i * TM
        n = j * TN
        a = load(x[z, m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(v_proj_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, D, TK):
            a = load(x[z, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(a, load(v_proj_weight[n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(v[z, m:m + TM, n:n + TN], acc)
    for b, h, lb in parallel(B, H, cdiv(L, RH)):
        g = h // G
        l = lb * RH
        store(qh[b, h, l:l + RH, :], load(qv[b, l:l + RH, h, :]) + load(qb[h, :]))
        store(kh[b, h, l:l + RH, :], load(kv[b, l:l + RH, g, :]) + load(kb[g, :]))
        store(vh[b, h, l:l + RH, :], load(vv[b, l:l + RH, g, :]) + load(vb[g, :]))
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
        t = load(att[b, h, r:r + RB, :]) * (1.0 / sqrt(HD * 1.0))
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
    for z, i, j in parallel(B, cdiv(L, TM), cdiv(D, TN)):
        m = i * TM
        n = j * TN
        a = load(o[z, m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(out_proj_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for kk in range(TK, D, TK):
            a = load(o[z, m:m + TM, kk:kk + TK], space=l1)
            acc = acc + matmul(a, load(out_proj_weight[n:n + TN, kk:kk + TK], space=l1), transpose_b=True)
        store(y[z, m:m + TM, n:n + TN], acc)
    for b, rb in parallel(B, cdiv(L, RD)):
        r = rb * RD
        store(y[b, r:r + RD, :], load(y[b, r:r + RD, :]) + load(out_proj_bias))
