# Suffix sum along dim 1 (cumsum of the flipped row, flipped back) without any flip:
# tiles are visited from the end of the row (a range with a negative step, starting at the
# last, possibly short, tile) and scanned with cumsum(reverse=True); the carry is the sum
# of the tiles to the right. One read and one write per element.
kernel cumsum_reverse(x: gm f32[B, N]) -> (y: gm f32[B, N]):
    const T = 4096
    const LAST = (cdiv(N, T) - 1) * T
    for b in parallel(B):
        carry = 0.0
        for j in range(LAST, -1, -T):
            t = load(x[b, j:j + T])
            store(y[b, j:j + T], cumsum(t, reverse=True) + carry)
            carry = carry + sum(t)
