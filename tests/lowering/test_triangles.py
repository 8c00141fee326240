"""tril/triu: the tile ops (checker, interpreter, the vector lowering in every dtype it takes and
through unstack) and a triangle of a cube product, whose tiles outside the triangle the cube pass
does not compute."""
from __future__ import annotations

import pytest

import ascendcraft
from ascendcraft.chips import load_chip
from ascendcraft.dsl.parser import parse
from ascendcraft.errors import DSLError
from ascendcraft.passes import PassError, run_passes
from ascendcraft.task import load_task

from compiled import compile_verified

_CHIP = load_chip("910B2")


def _op(forward: str, args: str, inputs: str, consts: dict) -> str:
    lines = ["import torch", "import torch.nn as nn", "class Model(nn.Module):",
             f"    def forward(self, {args}):", f"        return {forward}"]
    lines += [f"{k} = {v}" for k, v in consts.items()]
    lines += ["def get_inputs():", f"    return [{inputs}]", "def get_init_inputs():", "    return []", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- the tile ops on the vector units

# [16, 64] tiles of 2-D tensors in three dtypes, each tile passing its own diagonal (the matrix's
# diagonal shifted into the tile's frame), and a rank-3 tile ([2, 16, 64]: unstack, slice by slice);
# R = 100 and C = 150 leave tails on both axes, B = 3 one on the leading axis
_VECTOR = """
kernel tri(x: gm f32[R, C], h: gm f16[R, C], v: gm i32[R, C], s: gm f32[B, R, C]) -> (
        y: gm f32[R, C], g: gm f16[R, C], w: gm i32[R, C], u: gm f32[B, R, C]):
    const TR = 16
    const TC = 64
    const TB = 2
    for i, j in parallel(cdiv(R, TR), cdiv(C, TC)):
        m = i * TR
        n = j * TC
        store(y[m:m + TR, n:n + TC], tril(load(x[m:m + TR, n:n + TC]), diagonal=m - n - 2) * 3.0)
        store(g[m:m + TR, n:n + TC], triu(load(h[m:m + TR, n:n + TC]), diagonal=m - n + 5))
        store(w[m:m + TR, n:n + TC], tril(load(v[m:m + TR, n:n + TC]), diagonal=m - n))
    for k, i, j in parallel(cdiv(B, TB), cdiv(R, TR), cdiv(C, TC)):
        b = k * TB
        m = i * TR
        n = j * TC
        t = load(s[b:b + TB, m:m + TR, n:n + TC])
        store(u[b:b + TB, m:m + TR, n:n + TC], triu(t + 1.0, diagonal=m - n - 1))
"""
_VECTOR_OP = _op("(torch.tril(x, -2) * 3.0, torch.triu(h, 5), torch.tril(v), torch.triu(s + 1.0, -1))",
                 "x, h, v, s",
                 "torch.randn(R, C), torch.randn(R, C).half(), torch.randint(-9, 9, (R, C), dtype=torch.int32), "
                 "torch.randn(B, R, C)", {"B": 3, "R": 100, "C": 150})


def test_tril_and_triu_of_tiles_match_torch_on_the_simulator_in_every_dtype_and_rank_3(tmp_path):
    k = compile_verified(tmp_path, _VECTOR, _VECTOR_OP)
    ops = k.lowered.run.final.text
    assert "Tril(" in ops and "Triu(" in ops and "for _lead0 in range(" in ops


def test_a_triangle_needs_a_matrix_and_an_integer_diagonal(tmp_path):
    op = tmp_path / "op.py"
    op.write_text(_op("torch.tril(x)", "x", "torch.randn(R, C)", {"R": 8, "C": 8}))
    task = load_task(op)
    for body, message in (("tril(load(x[0, :]))", "tril needs a tile of rank >= 2"),
                          ("triu(load(x[:, :]), diagonal=0.5)", "triu(..., diagonal=...) must be an integer scalar")):
        text = f"kernel k(x: gm f32[R, C]) -> (y: gm f32[R, C]):\n    for i in parallel(1):\n" \
               f"        store(y[:, :], {body})\n"
        with pytest.raises((DSLError, PassError)) as e:
            run_passes(parse(text, "k.dsl"), [], task=task, shapes=task.shapes(), chip=_CHIP, trials=1)
        assert message in str(e.value) and "k.dsl:3" in str(e.value)


# ---------------------------------------------------------------- a triangle of a product

def _product(store_value: str, b_region: str, flags: str = "", sig_b: str = "b: gm f32[K, N]") -> str:
    return f"""
kernel k(a: gm f32[M, K], {sig_b}) -> (c: gm f32[M, N]):
    const TM = 128
    const TN = 256
    const TK = 64
    for i, j in parallel(cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load({b_region.format(k0="0", k1="TK")}, space=l1){flags})
        for k in range(TK, K, TK):
            ta = load(a[m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load({b_region.format(k0="k", k1="k + TK")}, space=l1){flags})
        store(c[m:m + TM, n:n + TN], {store_value})
"""


_B = "b[{k0}:{k1}, n:n + TN]"
_BT = "b[n:n + TN, {k0}:{k1}]"
_CONSTS = {"M": 700, "K": 100, "N": 530}   # 6 x 3 tiles, tails on every axis


def _cube(tmp_path, kernel: str, op: str):
    (tmp_path / "op.py").write_text(op)
    task = load_task(tmp_path / "op.py")
    from ascendcraft.lowering_passes.cube import Cube
    return run_passes(parse(kernel.lstrip("\n"), "k.dsl"), [Cube()], task=task, shapes=task.shapes(),
                      chip=_CHIP, trials=1)


def test_the_cube_pass_computes_the_tiles_a_triangle_touches_and_masks_the_rest_in_a_vector_phase(tmp_path):
    run = _cube(tmp_path, _product("tril(acc, diagonal=m - n)", _B),
                _op("torch.tril(A @ B)", "A, B", "torch.randn(M, K), torch.randn(K, N)", _CONSTS))
    after = run.final.text
    # the cube phase: a tile is computed when the triangle touches it and the tile is this core's turn
    assert "_k0 = minimum(maximum(_i0 * TM - _j0 * TN + TM, 0), 1)" in after
    assert "for _q0 in range(_k0 * (1 - minimum((_n0 + CORES - core0) % CORES, 1))):" in after
    assert "Matmul(a[_r0:_r0 + TM, 0:K], b[0:K, _c0:_c0 + TN], base=(TM, TN, TK))" in after
    # the vector phase: zeros for the others, the crossed tiles masked in strips of 16 rows
    assert "store(c[_s0:_s0 + 16, _c1:_c1 + TN], 0.0)" in after
    assert "tril(_t0, diagonal=_i1 * TM - _j1 * TN + (_s1 - _r1))" in after
    assert "matmul(" not in after and "tril(A @ B)" not in run.final.notes[0]


@pytest.mark.parametrize("store_value, b_region, flags, sig_b, forward, diagonal", [
    ("tril(acc, diagonal=m - n - 5)", _B, "", "b: gm f32[K, N]", "torch.tril(A @ B, -5)", -5),
    ("triu(acc, diagonal=m - n + 7)", _BT, ", transpose_b=True", "b: gm f32[N, K]", "torch.triu(A @ B.T, 7)", 7),
])
def test_a_triangle_of_a_product_matches_torch_and_skips_the_tiles_outside_it(
        tmp_path, store_value, b_region, flags, sig_b, forward, diagonal):
    b_shape = "K, N" if "K, N" in sig_b else "N, K"
    op = _op(forward, "A, B", f"torch.randn(M, K), torch.randn({b_shape})", _CONSTS)
    kernel = _product(store_value, b_region, flags, sig_b)
    compile_verified(tmp_path, kernel, op, trials=2)
    k = ascendcraft.compile(tmp_path / "k.dsl", tmp_path / "op.py", trials=1, model_time=True)
    # the MACs the cube did are exactly those of the tiles the triangle touches
    M, K, N = _CONSTS["M"], _CONSTS["K"], _CONSTS["N"]
    tiles = []
    for r in range(0, M, 128):
        for c in range(0, N, 256):
            d = r - c + diagonal                       # the diagonal in the tile's frame
            touched = d + 128 >= 1 if store_value.startswith("tril") else 256 - d >= 1
            if touched:
                tiles.append(min(128, M - r) * min(256, N - c) * K)
    per_core = [core.cube_macs for core in k.lowered.cost.per_core]
    assert sum(per_core) == sum(tiles) < M * N * K
    # dealt round-robin: no core does two tiles more than another
    assert max(per_core) <= -(-len(tiles) // _CHIP.aic_cores) * 128 * 256 * K


def test_a_triangle_of_a_batched_product_deals_batch_and_tile_pairs(tmp_path):
    # two batch axes of A times one shared B (a causal mask on a batch of scores): the items are
    # (batch, tile) pairs, the vector phase runs over the batches too; tails on M and N
    kernel = """
kernel k(a: gm f32[P, Q, M, K], b: gm f32[K, N]) -> (c: gm f32[P, Q, M, N]):
    const TM = 128
    const TN = 128
    const TK = 64
    for p, q, i, j in parallel(P, Q, cdiv(M, TM), cdiv(N, TN)):
        m = i * TM
        n = j * TN
        ta = load(a[p, q, m:m + TM, 0:TK], space=l1)
        acc = matmul(ta, load(b[0:TK, n:n + TN], space=l1))
        for k in range(TK, K, TK):
            ta = load(a[p, q, m:m + TM, k:k + TK], space=l1)
            acc = acc + matmul(ta, load(b[k:k + TK, n:n + TN], space=l1))
        store(c[p, q, m:m + TM, n:n + TN], triu(acc, diagonal=m - n + 1))
"""
    op = _op("torch.triu(A @ B, 1)", "A, B", "torch.randn(P, Q, M, K), torch.randn(K, N)",
             {"P": 2, "Q": 3, "M": 200, "K": 80, "N": 300})
    after = _cube(tmp_path, kernel, op).final.text
    assert "for _w0 in range(Q * (P * _nt0)):" in after and "_z1 = _w0 // _nt0 % Q" in after
    assert "Matmul(a[_z0, _z1, _r0:_r0 + TM, 0:K], b[0:K, _c0:_c0 + TN]" in after
    assert "for _z2, _z3, _i1, _j1 in parallel(P, Q, cdiv(M, TM), cdiv(N, TN)):" in after
    compile_verified(tmp_path, kernel, op, trials=2)
