"""The hoist pass: a small kernel input read one value per iteration is loaded whole once per core
and read from UB; a large one keeps its one-value loads."""
from __future__ import annotations

import re
from types import SimpleNamespace

from ascendcraft.dsl.parser import parse
from ascendcraft.dsl.printer import print_kernel
from ascendcraft.lowering_passes.hoist import Hoist

from compiled import compile_verified

PLANE_BIAS = """
kernel plane_bias(x: gm f32[N, C, H, W], bias: gm f32[C], gain: gm i64[C]) -> (y: gm f32[N, C, H, W]):
    const HB = maximum(1, minimum(H, 8192 // W))
    for n, c in parallel(N, C):
        b = load(bias[c])
        g = cast(load(gain[c]), f32)
        for h in range(0, H, HB):
            store(y[n, c, h:h + HB, :], load(x[n, c, h:h + HB, :]) * g + b)
"""

PLANE_BIAS_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, bias, gain):
        return x * gain.view(1, -1, 1, 1) + bias.view(1, -1, 1, 1)

N = 2
C = CHANNELS
H = 5
W = 33

def get_inputs():
    return [torch.randn(N, C, H, W), torch.randn(C), torch.randint(-3, 4, (C,))]

def get_init_inputs():
    return []
"""


class _Tensor:
    """What hoist reads of a GM tensor's symbol: its dtype and declared dims."""

    def __init__(self, dtype, dims):
        self.dtype, self.dims = dtype, dims


def _lowered(k) -> str:
    return k.lowered.run.final.text


def test_a_small_input_read_per_iteration_is_loaded_once_per_core_and_read_from_ub(tmp_path):
    k = compile_verified(tmp_path, PLANE_BIAS, PLANE_BIAS_OP.replace("CHANNELS", "37"), trials=2)
    text = _lowered(k)
    whole = {m[2]: m[1] for m in re.finditer(r"(_w\d+) = load\((\w+)\[0:C\], out=\w+\)", text)}
    assert set(whole) == {"bias", "gain"}
    # loaded before the core's loop over its planes, read inside it on the scalar unit from UB
    assert all(text.index(f"{w} = load(") < text.index("for f0 in range(") for w in whole.values())
    assert f"GetValue({whole['bias']}[c])" in text and f"GetValue({whole['gain']}[c])" in text
    assert "load(bias[c]" not in text and "load(gain[c]" not in text
    hoist = next(p for p in k.report["passes"] if p["name"] == "hoist")
    assert hoist["notes"] == ["bias, gain loaded whole once per core, not one value per iteration"]


def test_an_input_larger_than_the_hoist_limit_keeps_its_one_value_loads(tmp_path):
    # 3,000 f32 biases (12 KiB) and i64 gains (24 KiB): more than 8 KiB each
    k = compile_verified(tmp_path, PLANE_BIAS.replace("H, 8192 // W", "H, 256 // W"),
                         PLANE_BIAS_OP.replace("CHANNELS", "3000").replace("N = 2", "N = 1"), trials=1)
    text = _lowered(k)
    assert "_w0" not in text and re.search(r"load\(bias\[", text) and re.search(r"load\(gain\[", text)
    assert next(p for p in k.report["passes"] if p["name"] == "hoist")["notes"] == []


EMBED = """
kernel embed(indices: gm i64[B, S], table: gm f32[V, E]) -> (y: gm f32[B, S, E]):
    for b, s in parallel(B, S):
        r = load(indices[b, s])
        store(y[b, s, :], load(table[r, :]))
"""

EMBED_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, indices, table):
        return table[indices]

B = 100
S = 130
V = 50
E = 40

def get_inputs():
    return [torch.randint(0, V, (B, S)), torch.randn(V, E)]

def get_init_inputs():
    return []
"""


def test_rows_gathered_by_index_read_the_indices_in_blocks_through_a_flat_view(tmp_path):
    # 13,000 indices over 48 cores: 271 or 270 each, so every core reads two blocks of 256
    k = compile_verified(tmp_path, EMBED, EMBED_OP, trials=2)
    text = _lowered(k)
    view = re.search(r"(_flat\d+) = view\(indices, \((_n\d+),\)\)", text)
    assert view and re.search(rf"const {view[2]} = B \* S\n", text)
    block = re.search(rf"(_k\d+) = load\({view[1]}\[(_kb\d+):\2 \+ 256\], out=\w+\)", text)
    assert block and f"r = GetValue({block[1]}[f0 - {block[2]}])" in text
    assert next(p for p in k.report["passes"] if p["name"] == "hoist")["notes"] == [
        "indices read in blocks of 256 values, not one value per iteration"]


PAIRS = """
kernel pairs(idx: gm i64[R, K], x: gm f32[N, C]) -> (y: gm f32[R, K, C]):
    for r in parallel(R):
        for k in range(0, K):
            d = load(idx[r, k])
            store(y[r, k, :], load(x[d, :]) + 1.0)
"""

PAIRS_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, idx, x):
        return x[idx] + 1.0

R = 5
K = 300
N = 70
C = 24

def get_inputs():
    return [torch.randint(0, N, (R, K)), torch.randn(N, C)]

def get_init_inputs():
    return []
"""


def test_a_row_of_indices_read_at_a_loops_variable_is_read_in_blocks_of_that_row(tmp_path):
    k = compile_verified(tmp_path, PAIRS, PAIRS_OP, trials=2)
    text = _lowered(k)
    block = re.search(r"(_k\d+) = load\(idx\[r, (_kb\d+):\2 \+ 256\], out=\w+\)", text)
    assert block and re.search(r"for _kb\d+ in range\(0, K, 256\):", text)
    assert f"d = GetValue({block[1]}[k - {block[2]}])" in text


def _hoisted(kernel: str, env: dict, tensors: dict, views: dict | None = None) -> str:
    """The hoist pass alone on ``kernel`` (written as partition leaves a kernel), at the dims ``env``,
    with ``tensors`` (name -> _Tensor) as the symbols of the kernel's GM tensors and ``views`` (view
    -> the tensor whose memory it is)."""
    ctx = SimpleNamespace(notes=[], envs=lambda: [env], tensor=tensors.__getitem__,
                          symbols=SimpleNamespace(root=lambda name: (views or {}).get(name, name)))
    return print_kernel(Hoist().run(parse(kernel.lstrip("\n"), "k.dsl"), ctx))


def test_a_tensor_the_phase_writes_keeps_its_one_value_loads():
    text = _hoisted("""
kernel twice(x: gm f32[N]) -> (y: gm f32[N]):
    scratch s: f32[N]
    for c in parallel(CORES):
        for i in range(c * N // CORES, (c + 1) * N // CORES):
            store(s[i], load(x[i]) * 2.0)
            v = load(s[i])
            w = load(x[i])
            store(y[i], v + w)
""", {"N": 5000}, {t: _Tensor("f32", ("N",)) for t in ("x", "s", "y")})
    assert "v = load(s[i])" in text                  # written in this phase: read where it is written
    assert re.search(r"w = _k\d+\[i - _kb\d+\]", text)   # the input: in blocks
    # written through a view of it: the same memory
    through_view = _hoisted("""
kernel twice(x: gm f32[N]) -> (y: gm f32[N]):
    scratch s: f32[N]
    sv = view(s, (N, 1))
    for c in parallel(CORES):
        for i in range(c * N // CORES, (c + 1) * N // CORES):
            store(sv[i, 0], load(x[i]) * 2.0)
            v = load(s[i])
            store(y[i], v + 1.0)
""", {"N": 5000}, {t: _Tensor("f32", ("N",)) for t in ("x", "s", "y")}, {"sv": "s"})
    assert "v = load(s[i])" in through_view


def test_one_flat_view_is_declared_before_every_phase_even_with_constants_between_phases():
    text = _hoisted("""
kernel pick(idx: gm i32[A, B], t: gm f32[V, C]) -> (y: gm f32[A, B, C], z: gm f32[A, B, C]):
    for core0 in parallel(CORES):
        for f0 in range(core0 * (A * B) // CORES, (core0 + 1) * (A * B) // CORES):
            a = f0 // B
            b = f0 % B
            r = load(idx[a, b])
            store(y[a, b, :], load(t[r, :]))
    const H = 2
    for core1 in parallel(CORES):
        for f1 in range(core1 * (A * B) // CORES, (core1 + 1) * (A * B) // CORES):
            a = f1 // B
            b = f1 % B
            r = load(idx[a, b])
            store(z[a, b, :], load(t[r, :]) * H)
""", {"A": 40, "B": 300, "V": 9, "C": 5}, {"idx": _Tensor("i32", ("A", "B")), "t": _Tensor("f32", ("V", "C"))})
    views = re.findall(r"(_flat\d+) = view\(idx, \((_n\d+),\)\)", text)
    assert len(views) == 1 and text.index(" = view(") < text.index("for core0 in parallel")   # one, before both phases
    assert len(re.findall(rf"= load\({views[0][0]}\[_kb\d+:_kb\d+ \+ 512\]\)", text)) == 2
