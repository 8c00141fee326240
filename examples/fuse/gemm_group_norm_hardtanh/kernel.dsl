# A GEMM with a group-norm epilogue, in two phases:
#   phase 1 (cube): y = x W^T, the nn.Linear weight [out, in] read transposed in place, 128 x 256 tiles,
#                   K in 64-deep steps;
#   phase 2 (vector): in place on y, per block of RB rows and one group of GS features (y read as
#                   [B, G, GS] through a view): the Linear's bias added, each row's group mean and
#                   variance (of the centred values: no cancellation), normalised, the GroupNorm's
#                   affine weight and bias applied, then hardtanh's clamp. [RB, GS] tiles of about
#                   8192 values (MKB: 16 rows of a 512-feature group), the statistics as [RB, 1] columns.
# y crosses HBM three times (written by the product, read and written by the epilogue: 96 MiB at MKB's
# shape, against 68.7 G multiply-adds on the cube).
kernel gemm_group_norm_hardtanh(x: gm f32[B, K], gemm_weight: gm f32[F, K], gemm_bias: gm f32[F],
                                group_norm_weight: gm f32[F], group_norm_bias: gm f32[F], num_groups: i32,
                                hardtanh_min: f32, hardtanh_max: f32, eps: f32 = 1e-5) -> (y: gm f32[B, F]):
    const TM = 128
    const TN = 256
    const TK = 64
    const G = num_groups
    const GS = F // G
    const RB = maximum(1, 8192 // GS)
    yv = view(y, (B, G, GS))
    bv = view(gemm_bias, (G, GS))
    wv = view(group_norm_weight, (G, GS))
    cv = view(group_norm_bias, (G, GS))
    for i, j in parallel(cdiv(B, TM), cdiv(F, TN)):
        m = i * TM
        n = j * TN
        a = load(x[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(gemm_weight[n:n + TN, 0:TK], space=l1), transpose_b=True)
        for k in range(TK, K, TK):
            a = load(x[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(gemm_weight[n:n + TN, k:k + TK], space=l1), transpose_b=True)
        store(y[m:m + TM, n:n + TN], acc)
    for rb, g in parallel(cdiv(B, RB), G):
        r = rb * RB
        t = load(yv[r:r + RB, g, :]) + load(bv[g, :])
        d = t - mean(t, axis=1, keepdims=True)
        s = rsqrt(mean(d * d, axis=1, keepdims=True) + eps)
        store(yv[r:r + RB, g, :], clamp(d * s * load(wv[g, :]) + load(cv[g, :]), hardtanh_min, hardtanh_max))
