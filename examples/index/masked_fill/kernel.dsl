# masked_fill(mask, -inf) is where(mask, -inf, x): the bool mask (one byte per element in GM) is
# loaded next to x and selects between the fill value and x. Rows (b, r) spread over the cores,
# tiles of up to 8192 along a row; x and mask are read once, y written once.
kernel masked_fill(x: gm f32[B, R, C], mask: gm bool[B, R, C]) -> (y: gm f32[B, R, C]):
    const T = minimum(C, 8192)
    for b, r in parallel(B, R):
        for j in range(0, C, T):
            store(y[b, r, j:j + T], where(load(mask[b, r, j:j + T]), -inf, load(x[b, r, j:j + T])))
