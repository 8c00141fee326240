# c = A @ b with b one column: row dot products on the vector units (a matrix-vector product
# does 2 flops per A element loaded, far too few for the cube). The rows are long, so the cores
# split K, not M: unit q takes the chunk k0 .. k0 + KC of every row. Each core gets U whole chunks of
# at most 4096 (the chunk of b stays within 16 KiB): KC = K / (CORES * U) rounded up to a 32-byte block,
# so at MKB's K of 1M 288 chunks of 3648, six per core (256 chunks of 4096 left 16 cores a sixth
# one and the rest idle meanwhile: 6,749 us, now 6,024). A unit loads its chunk of b once and walks
# the rows R at a time, [R, KC] tiles of A (up to 32 KiB) times the chunk of b broadcast over the
# rows, summed along each row; each unit writes
# one partial per row to a scratch row of its own. Phase 2 adds the NC partials of each row,
# TM rows per core (NC x M values, 0.1% of A's bytes at MKB's shape).
# A is read exactly once, in long contiguous runs; the row sums wait on the scalar unit, so the
# lowering loads each next [R, KC] tile before reducing the current one (prefetch).
kernel matrix_vector_multiplication(a: gm f32[M, K], b: gm f32[K, 1]) -> (c: gm f32[M, 1]):
    const U = cdiv(cdiv(K, CORES), 4096)
    const KC = cdiv(cdiv(K, CORES * U), 8) * 8
    const NC = cdiv(K, KC)
    const R = maximum(1, 8192 // KC)
    const TM = 256
    scratch part: f32[NC, M]
    for q in parallel(NC):
        k0 = q * KC
        v = load(b[k0:k0 + KC, 0])
        for r in range(0, M, R):
            store(part[q, r:r + R], sum(load(a[r:r + R, k0:k0 + KC]) * v, axis=1))
    for mb in parallel(cdiv(M, TM)):
        m = mb * TM
        acc = load(part[0, m:m + TM])
        for q in range(1, NC):
            acc = acc + load(part[q, m:m + TM])
        store(c[m:m + TM, 0], acc)
