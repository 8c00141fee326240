"""Products that stream their operands (GM regions, a vector tile) in one phase: attention's two
products with the softmax between them, online over the keys or over whole rows. The checker's
meaning, the cube pass's rewrite and refusals, and kernels on the simulator against torch."""
import pytest

from ascendcraft.errors import DSLError
from ascendcraft.passes import PassError

from compiled import compile_verified

OP = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


B, H, S, D = {b}, {h}, {s}, {d}


def get_inputs():
    q = torch.randn(B, H, S, D)
    k = torch.randn(B, H, S, D)
    # the keys of the last rows score highest: each row's maximum changes late in the row
    k[:, :, -{late}:, :] += 2.0 * q.mean(dim=2, keepdim=True)
    return [q, k, torch.randn(B, H, S, D)]


def get_init_inputs():
    return []
'''

# flash attention: the keys in TN-column tiles, a running row maximum and sum, the accumulator
# rescaled by exp(old max - new max) at each tile (the first tile peeled: its values start them)
FLASH = '''kernel k(q: gm f32[B, H, S, D], k: gm f32[B, H, S, D], v: gm f32[B, H, S, D]) -> (o: gm f32[B, H, S, D]):
    const TM = {tm}
    const TN = {tn}
    for b, h, i in parallel(B, H, cdiv(S, TM)):
        m = i * TM
        c = 1.0 / sqrt(D * 1.0)
        t = matmul(q[b, h, m:m + TM, :], k[b, h, 0:TN, :], transpose_b=True) * c
        mx = max(t, axis=1, keepdims=True)
        p = exp(t - mx)
        l = sum(p, axis=1, keepdims=True)
        acc = matmul(p, v[b, h, 0:TN, :])
        for n in range(TN, S, TN):
            t = matmul(q[b, h, m:m + TM, :], k[b, h, n:n + TN, :], transpose_b=True) * c
            mn = maximum(mx, max(t, axis=1, keepdims=True))
            p = exp(t - mn)
            alpha = exp(mx - mn)
            l = l * alpha + sum(p, axis=1, keepdims=True)
            acc = acc * alpha + matmul(p, v[b, h, n:n + TN, :])
            mx = mn
        store(o[b, h, m:m + TM, :], acc / l)
'''

# whole rows of scores, the second product stored straight to o in column tiles of v
ROWS = '''kernel k(q: gm f32[B, H, S, D], k: gm f32[B, H, S, D], v: gm f32[B, H, S, D]) -> (o: gm f32[B, H, S, D]):
    const TM = 32
    const TD = 32
    for b, h, i in parallel(B, H, cdiv(S, TM)):
        m = i * TM
        t = matmul(q[b, h, m:m + TM, :], k[b, h, :, :], transpose_b=True) * (1.0 / sqrt(D * 1.0))
        e = exp(t - max(t, axis=1, keepdims=True))
        p = e / sum(e, axis=1, keepdims=True)
        for d in range(0, D, TD):
            store(o[b, h, m:m + TM, d:d + TD], matmul(p, v[b, h, :, d:d + TD]))
'''


def _op(b=2, h=2, s=150, d=40, late=7):
    return OP.format(b=b, h=h, s=s, d=d, late=late)


@pytest.mark.parametrize("tm,tn,shape", [(64, 64, dict(s=150, d=40)), (32, 128, dict(s=200, d=24, late=3))])
def test_flash_attention_matches_torch_on_the_simulator_with_tails_on_every_axis(tmp_path, tm, tn, shape):
    """Rows (150 = 2 x 64 + 22), key tiles (the last one 22 or 72 keys) and a head dimension that is
    no multiple of 16 all end in a tail; the op's own draw puts each row's maximum in its last keys."""
    k = compile_verified(tmp_path, FLASH.format(tm=tm, tn=tn), _op(**shape), trials=2)
    final = k.lowered.run.levels[-1].text
    assert final.count("Matmul(") == 4 and final.count("staged=_ws") == 2
    # no scores in GM: the only scratch is each core's slots for the staged probabilities, for the
    # key tile's scores the cube computes an iteration ahead and for the products started early
    assert sorted(line.split(":")[0] for line in final.splitlines() if "scratch" in line) == \
        ["    scratch _wa0", "    scratch _wd0", "    scratch _wd1", "    scratch _ws0", "    scratch _ws1"]
    # p @ v starts as soon as p is ready, before the row sums and the rescaling that do not need it
    body = final[final.index("for n in range"):]
    assert body.index("Matmul(p, v[b, h, n:n + TN, :]") < body.index("SumEachRow(p")
    assert final.count("defer=True") == 2
    assert "ahead=(n, TN, S, TN, q[b, h, m:m + TM, :], k[b, h, n + TN:n + TN + TN, :])" in final
    assert "template Iterate<false>" in k.source and "template GetTensorC<false>" in k.source
    assert "AscendC::HardEvent::MTE3_S" in k.source and "mm1.SetTensorA(_ws0_uGm[" in k.source


def test_a_stored_product_streams_to_gm_and_whole_rows_softmax_on_chip(tmp_path):
    k = compile_verified(tmp_path, ROWS, _op(s=75, d=72), trials=2)
    final = k.lowered.run.levels[-1].text
    assert "store(o[b, h, m:m + TM, d:d + TD], Matmul(p, v[b, h, :, d:d + TD], staged=_ws0[core0, :, :]" in final
    assert "mm1.IterateAll(o_uGm[" in k.source


def _cube(text, op_text, tmp_path):
    from ascendcraft.chips import load_chip
    from ascendcraft.dsl.parser import parse
    from ascendcraft.lowering_passes.cube import Cube
    from ascendcraft.passes import run_passes
    from ascendcraft.task import load_task
    (tmp_path / "op.py").write_text(op_text)
    task = load_task(tmp_path / "op.py")
    return run_passes(parse(text, "k.dsl"), [Cube()], task=task, shapes=task.shapes(), chip=load_chip("910B2"),
                      trials=1)


def test_the_phase_is_dealt_to_the_cores_and_each_product_is_one_base_block(tmp_path):
    after = _cube(FLASH.format(tm=64, tn=128), _op(), tmp_path).final.text
    assert "const _nt0 = B * H * cdiv(S, TM)" in after and "scratch _ws0: gm f32[CORES, TM, TN]" in after
    assert "for core0 in parallel(CORES):" in after and "b = _f0 // cdiv(S, TM) // H" in after
    assert ("t = Matmul(q[b, h, m:m + TM, :], k[b, h, 0:TN, :], transpose_b=True, base=(cdiv(TM, 16) * 16, "
            "cdiv(TN, 16) * 16, maximum(8, minimum(64, 8192 // maximum(cdiv(TM, 16) * 16, cdiv(TN, 16) * 16)) // 8 "
            "* 8))) * c") not in after    # the product is taken out of the expression first
    assert "_p0 = Matmul(q[b, h, m:m + TM, :], k[b, h, 0:TN, :], transpose_b=True, base=(" in after
    assert "acc = acc * alpha + _p" in after


@pytest.mark.parametrize("edit,why", [
    # an l1 product beside a streamed one
    (("        acc = matmul(p, v[b, h, 0:TN, :])\n",
      "        acc = matmul(p, v[b, h, 0:TN, :])\n        u = matmul(load(q[b, h, 0:16, 0:16], space=l1), "
      "load(k[b, h, 0:16, 0:16], space=l1))\n"), "has no product of l1 tiles"),
    # the vector operand is an expression, not a tile assigned in the phase
    (("acc = matmul(p, v[b, h, 0:TN, :])", "acc = matmul(exp(t - mx), v[b, h, 0:TN, :])"),
     "a ub operand of matmul is a tile assigned earlier in the phase"),
    # both operands on the vector unit
    (("        acc = matmul(p, v[b, h, 0:TN, :])\n",
      "        acc = matmul(p, v[b, h, 0:TN, :])\n        u = matmul(p, t, transpose_b=True)\n"),
     "a product reads at most one ub tile"),
])
def test_streamed_forms_the_lowering_does_not_take_are_refused_with_the_reason(tmp_path, edit, why):
    text = FLASH.format(tm=64, tn=64).replace(*edit)
    with pytest.raises(PassError, match=why):
        _cube(text, _op(), tmp_path)


def test_a_product_larger_than_l0c_is_refused_naming_its_tile_and_the_shapes(tmp_path):
    text = ("kernel k(q: gm f32[B, H, S, D], k: gm f32[B, H, S, D], v: gm f32[B, H, S, D]) -> (o: gm f32[B, H, S, D]):\n"
            "    for b, h, i in parallel(B, H, cdiv(S, 64)):\n"
            "        m = i * 64\n"
            "        t = matmul(q[b, h, m:m + 64, :], k[b, h, :, :], transpose_b=True)\n"
            "        store(o[b, h, m:m + 64, 0:1], max(t, axis=1, keepdims=True))\n")
    with pytest.raises(PassError, match=r"this product's tile is 64 x 608 f32 \(155,648 bytes\) at shapes B=2, "
                                        r"H=2, S=600, D=40; .* holds 131,072 bytes in L0C"):
        _cube(text, _op(s=600), tmp_path)


def test_streamed_operands_have_no_l0_limit_and_their_product_is_a_ub_tile():
    from ascendcraft.chips import load_chip
    from ascendcraft.dsl.checker import Binding, check
    from ascendcraft.dsl.parser import parse
    text = ("kernel k(a: gm f32[M, K], b: gm f32[K, N]) -> (c: gm f32[M, N]):\n"
            "    for i in parallel(1):\n"
            "        t = matmul(a[:, :], b[:, :])\n"
            "        store(c[:, :], t + 1.0)\n")
    ck = check(parse(text, "k.dsl"), Binding({"M": 32, "K": 4096, "N": 64}, {}), load_chip("910B2"))
    assert any(getattr(t, "shape", None) == (32, 64) and t.space == "ub" and t.dtype == "f32"
               for t in ck.expr_types.values())
    # stored as it is, the product goes from the cube to GM and holds no UB: a [32, 65536] product
    # (8 MiB) is no memory error in the checker nor in the interpreter; used by a vector op, it is
    big = {"M": 32, "K": 64, "N": 65536}
    stored = text.replace("t = matmul(a[:, :], b[:, :])\n", "").replace("t + 1.0", "matmul(a[:, :], b[:, :])")
    check(parse(stored, "k.dsl"), Binding(big, {}), load_chip("910B2"))
    with pytest.raises(DSLError, match="exceeds the 196,608-byte UB"):
        check(parse(text, "k.dsl"), Binding(big, {}), load_chip("910B2"))
    with pytest.raises(DSLError, match="an i8 product multiplies two l1 tiles"):
        check(parse(text.replace("f32", "i8"), "k.dsl"), Binding({"M": 32, "K": 64, "N": 64}, {}), load_chip("910B2"))


CAUSAL_OP = OP.replace("scaled_dot_product_attention(q, k, v)", "scaled_dot_product_attention(q, k, v, is_causal=True)")

# the causal form (square tiles): key tiles past a row block's diagonal are never computed (the loop
# stops at the block's last row), the diagonal tile masked in its own frame
_MASK = "{pad}t = where(tril(maximum(minimum(t, 1.0), 1.0), diagonal={d}) > 0.5, t, -inf)\n"
_FIRST = "        t = matmul(q[b, h, m:m + TM, :], k[b, h, 0:TN, :], transpose_b=True) * c\n"
_LOOP = "            t = matmul(q[b, h, m:m + TM, :], k[b, h, n:n + TN, :], transpose_b=True) * c\n"
CAUSAL = (FLASH.format(tm=32, tn=32)
          .replace("for n in range(TN, S, TN):", "for n in range(TN, minimum(S, m + TM), TN):")
          .replace(_FIRST, _FIRST + _MASK.format(pad=" " * 8, d="m"))
          .replace(_LOOP, _LOOP + _MASK.format(pad=" " * 12, d="m - n")))


def test_causal_flash_attention_skips_the_tiles_past_the_diagonal_and_matches_torch(tmp_path):
    k = compile_verified(tmp_path, CAUSAL, CAUSAL_OP.format(b=1, h=2, s=100, d=24, late=5), trials=2)
    assert "for n in range(TN, minimum(S, m + TM), TN):" in k.lowered.run.levels[-1].text
    assert CAUSAL.count("where(tril(") == 2


def test_a_product_whose_region_an_iteration_computes_is_not_computed_ahead(tmp_path):
    text = FLASH.format(tm=64, tn=64).replace(
        "            t = matmul(q[b, h, m:m + TM, :], k[b, h, n:n + TN, :], transpose_b=True) * c\n",
        "            nn = n + 0\n            t = matmul(q[b, h, m:m + TM, :], k[b, h, nn:nn + TN, :], transpose_b=True) * c\n")
    after = _cube(text, _op(), tmp_path).final.text
    assert "k[b, h, nn:nn + TN, :]" in after and "ahead=" not in after
