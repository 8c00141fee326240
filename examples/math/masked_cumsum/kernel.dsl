# Masked prefix sum along dim 1: y = cumsum(where(mask, x, 0)). The bool mask is read as a
# bool tile (1 byte per element) and applied with a select, not a multiply by a cast mask.
# As in cumsum: rows over cores, 4096-element tiles (16 KiB: the scan's work area and Gather
# tables fit beside double-buffered queues), a running carry between tiles.
kernel masked_cumsum(x: gm f32[B, N], mask: gm bool[B, N]) -> (y: gm f32[B, N]):
    const T = 4096
    for b in parallel(B):
        carry = 0.0
        for j in range(0, N, T):
            v = where(load(mask[b, j:j + T]), load(x[b, j:j + T]), 0.0)
            store(y[b, j:j + T], cumsum(v) + carry)
            carry = carry + sum(v)
