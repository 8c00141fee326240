# Inclusive prefix sum along each row (dim 1). Rows go to the cores; a row streams through
# UB once in 4096-element tiles (16 KiB: the scan's work area and Gather tables fit beside
# double-buffered queues): each tile's scan is offset by the carry (the sum of all earlier
# tiles of the row). One read and one write per element.
kernel cumsum(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 4096
    for b in parallel(B):
        carry = 0.0
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            store(y[b, j:j + T], cumsum(t) + carry)
            carry = carry + sum(t)
