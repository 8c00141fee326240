# An embedding lookup: y[b, s, :] = table[indices[b, s], :]. Each (b, s) is one row copy from the
# table to the output, its index a one-value i64 tile read on the scalar unit; the lowering reads
# the indices 256 at a time (hoist), so the row copies follow one another with no GM wait between.
# The table is read only at the rows looked up, y written once.
kernel embedding(indices: gm i64[B, S], table: gm f32[V, E]) -> (y: gm f32[B, S, E]):
    const T = minimum(E, 8192)
    for b, s in parallel(B, S):
        r = load(indices[b, s])
        for j in range(0, E, T):
            store(y[b, s, j:j + T], load(table[r, j:j + T]))
