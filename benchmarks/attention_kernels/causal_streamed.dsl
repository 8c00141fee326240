# Causal multi-head self-attention (examples/attention/causal_attention) with its scores, masked
# softmax and product by v in one phase of streamed products (flash attention's causal form: key
# tiles past a row block's diagonal are never computed, the diagonal tile masked in its own frame),
# in five phases where the example has eight: the q/k/v projection, the heads split out (q scaled),
# the attention written straight into the heads' places of o, the output projection, its bias.
kernel causal_attention(x: gm f32[B, L, E], mha_in_proj_weight: gm f32[E3, E], mha_in_proj_bias: gm f32[E3],
                        mha_out_proj_weight: gm f32[E, E], mha_out_proj_bias: gm f32[E], num_heads: i32) -> (
        y: gm f32[B, L, E]):
    const TM = 128
    const TN = 128
    const TK = 64
    const TA = 64
    const H = num_heads
    const HD = E // H
    const RE = maximum(1, 8192 // E)
    const RH = maximum(1, 4096 // HD)
    scratch qkv: f32[B, L, E3]
    scratch qh: f32[B, H, L, HD]
    scratch kh: f32[B, H, L, HD]
    scratch vh: f32[B, H, L, HD]
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
    for b, h, i in parallel(B, H, cdiv(L, TA)):
        m = i * TA
        t = matmul(qh[b, h, m:m + TA, :], kh[b, h, 0:TA, :], transpose_b=True)
        t = where(tril(maximum(minimum(t, 1.0), 1.0), diagonal=m) > 0.5, t, -inf)
        mx = max(t, axis=1, keepdims=True)
        p = exp(t - mx)
        l = sum(p, axis=1, keepdims=True)
        acc = matmul(p, vh[b, h, 0:TA, :])
        for n in range(TA, minimum(L, m + TA), TA):
            t = matmul(qh[b, h, m:m + TA, :], kh[b, h, n:n + TA, :], transpose_b=True)
            t = where(tril(maximum(minimum(t, 1.0), 1.0), diagonal=m - n) > 0.5, t, -inf)
            mn = maximum(mx, max(t, axis=1, keepdims=True))
            p = exp(t - mn)
            alpha = exp(mx - mn)
            l = l * alpha + sum(p, axis=1, keepdims=True)
            acc = acc * alpha + matmul(p, vh[b, h, n:n + TA, :])
            mx = mn
        store(ov[b, m:m + TA, h, :], acc / l)
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
