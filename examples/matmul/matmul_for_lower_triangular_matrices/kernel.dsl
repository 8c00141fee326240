# C = tril(A @ B) on the cube unit, skipping the tiles above the diagonal. The phase is the
# plain product (examples/matmul/matmul) with the triangle applied as the tile is stored:
# tril(acc, diagonal=m - n) keeps column - row <= 0 of the whole matrix, written in the tile's
# own frame (its element (r, c) is (m + r, n + c) of C). The lowering computes only the tiles the
# triangle touches (about half of them), zeroes the others, and masks the few the diagonal
# crosses in a vector phase (docs/lowering.md, "Cube phases").
kernel matmul_for_lower_triangular_matrices(a: gm f32[N, N], b: gm f32[N, N]) -> (c: gm f32[N, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    for i, j in parallel(cdiv(N, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, N, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[m:m + TM, n:n + TN], tril(acc, diagonal=m - n))
