# Constant padding of the last axis: each output row is the input row read from -left to
# N + right, the positions outside it filled with value (a padded load). left, right and value
# are forward arguments, bound in order. B rows of any leading rank. M, the output's last axis,
# is a const of x's dims and the attributes, so the exported operator's InferShape computes it.
kernel pad[T: (f16, bf16, f32)](x: gm T[*B, N], left: i32, right: i32, value: f32) -> (y: gm T[*B, M]):
    const M = N + left + right
    for r in parallel(B):
        store(y[r, :], load(x[r, 0 - left:N + right], pad=value))
