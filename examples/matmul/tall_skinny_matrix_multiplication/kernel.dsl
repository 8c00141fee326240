# C = A @ B for a tall, skinny A [M, N] and a short, wide B [N, M], N (the inner dimension) a few
# dozen: C is M x M, about 512 times the bytes of A and B together at M = 32768, N = 32, so the
# kernel is bound by writing C to HBM and the cube is nearly idle. Each iteration owns one
# 128 x 128 tile of C; the whole inner dimension fits one 64-deep step (the K loop runs zero
# times when N <= 64), so a tile is one load of each operand into L1 and one product. A
# 128 x 128 f32 tile is half of L0C: the Matmul API double-buffers L0C, the cube filling one
# block while the other drains to GM, which a 128 x 256 tile (all of L0C) would not allow.
# Lowering makes it one Matmul API call per cube core on a grid chosen at the real shapes
# (docs/lowering.md, "Cube phases").
kernel tall_skinny_matrix_multiplication(a: gm f32[M, N], b: gm f32[N, M]) -> (c: gm f32[M, M]):
    const TM = 128
    const TN = 128
    const TK = 64
    for i, j in parallel(cdiv(M, TM), cdiv(M, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, N, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], acc)
