# A 1x1 convolution is a product per image: y[n] = W x[n], with the weight [CO, CI, 1, 1] read as
# the matrix [CO, CI] and each image [CI, H, W] as the matrix [CI, H * W] (views: the same memory,
# no copy). One phase on the cube: each (image, row block, column block) item is a Matmul with the
# unbatched weight as A and the image as B; 128 x 256 base tiles, K = CI in 64-deep steps (MKB's
# 64 channels are one step). The output is written once, through a view of y as [N, CO, H * W].
kernel conv_pointwise_2d(x: gm f32[N, CI, H, W], conv1d_weight: gm f32[CO, CI, 1, 1]) -> (
        y: gm f32[N, CO, H, W]):
    const TM = 128
    const TN = 256
    const TK = 64
    const P = H * W
    xv = view(x, (N, CI, P))
    wv = view(conv1d_weight, (CO, CI))
    yv = view(y, (N, CO, P))
    for z, i, j in parallel(N, cdiv(CO, TM), cdiv(P, TN)):
        m = i * TM
        n = j * TN
        a = load(wv[m:m + TM, 0:TK], space=l1)
        acc = matmul(a, load(xv[z, 0:TK, n:n + TN], space=l1))
        for k in range(TK, CI, TK):
            a = load(wv[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(a, load(xv[z, k:k + TK, n:n + TN], space=l1))
        store(yv[z, m:m + TM, n:n + TN], acc)
