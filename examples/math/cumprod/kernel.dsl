# Inclusive prefix product along dim 1: rows over cores, 4096-element tiles (16 KiB: the
# scan's work area and Gather tables fit beside double-buffered queues), each tile's scan
# multiplied by the carry (the product of the earlier tiles of the row).
kernel cumprod(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 4096
    for b in parallel(B):
        carry = 1.0
        for j in range(0, N, T):
            t = load(x[b, j:j + T])
            store(y[b, j:j + T], cumprod(t) * carry)
            carry = carry * prod(t)
