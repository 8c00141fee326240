# c = A @ b with b one column: row dot products on the vector units (a matrix-vector product
# does 2 flops per A element loaded, far too few for the cube). The few rows are long, so the
# cores split K, not M: core q takes the chunk k0 .. k0 + KC of every row (KC = K / CORES rounded
# up to a whole 32-byte block), loads its chunk of b once, and walks the rows R at a time,
# [R, KC] tiles of A (about 16-32 KiB) times the chunk of b broadcast over the rows, summed
# along each row; each core writes one partial per row to a scratch row of its own. A final
# step on one core adds the CORES partials of each row (48 x M values, 0.2% of A's bytes).
# A is read exactly once, in long contiguous runs; the row sums wait on the scalar unit, so the
# lowering loads each next [R, KC] tile before reducing the current one (prefetch).
kernel matrix_vector_multiplication(a: gm f32[M, K], b: gm f32[K, 1]) -> (c: gm f32[M, 1]):
    const KC = cdiv(cdiv(K, CORES), 8) * 8
    const NC = cdiv(K, KC)
    const R = maximum(1, 8192 // KC)
    scratch part: f32[NC, M]
    for q in parallel(NC):
        k0 = q * KC
        v = load(b[k0:k0 + KC, 0])
        for r in range(0, M, R):
            store(part[q, r:r + R], sum(load(a[r:r + R, k0:k0 + KC]) * v, axis=1))
    store(c[:, 0], sum(load(part), axis=0))
