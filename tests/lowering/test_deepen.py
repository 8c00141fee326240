"""The deepen pass: a loop that loads small tiles gets input queues deep enough to keep the GM read
latency covered, within the chip's per-position slot limit and the UB; big tiles keep two slots."""
from __future__ import annotations

import math
import re
from dataclasses import replace
from types import SimpleNamespace

from ascendcraft.chips import load_chip
from ascendcraft.dsl import ast as A
from ascendcraft.dsl.check_lowered import SCALAR_RESERVE
from ascendcraft.dsl.parser import parse
from ascendcraft.lower import default_passes
from ascendcraft.lowering_passes.deepen import Deepen, in_flight_bytes
from ascendcraft.lowering_passes.pipeline import const_values, slot_bytes
from ascendcraft.passes import run_passes
from ascendcraft.task import load_task

from compiled import compile_verified

ROW_FILL = """
kernel row_fill(x: gm f32[B, R, C], mask: gm bool[B, R, C]) -> (y: gm f32[B, R, C]):
    const T = minimum(C, 8192)
    for b, r in parallel(B, R):
        for j in range(0, C, T):
            store(y[b, r, j:j + T], where(load(mask[b, r, j:j + T]), -inf, load(x[b, r, j:j + T])))
"""

ROW_FILL_OP = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, mask):
        return x.masked_fill(mask, float("-inf"))

batch = 3
rows = 37
cols = COLS

def get_inputs():
    return [torch.randn(batch, rows, cols), torch.rand(batch, rows, cols) < 0.5]

def get_init_inputs():
    return []
"""


def _queues(text: str) -> dict[str, tuple[str, int]]:
    return {m[1]: (m[2], int(m[3])) for m in re.finditer(r"buffer (q\w+): (vec\w+) \w+\[\w+\] \* (\d+)", text)}


def _pipelined(tmp_path, cols: int):
    (tmp_path / "op.py").write_text(ROW_FILL_OP.replace("COLS", str(cols)))
    task = load_task(tmp_path / "op.py")
    chain = default_passes()
    return run_passes(parse(ROW_FILL.lstrip("\n"), "k.dsl"), chain[:[p.name for p in chain].index("pipeline") + 1],
                      task=task, shapes=task.shapes(), chip=load_chip("910B2"), trials=1)


def test_rows_of_a_few_kib_get_queues_deep_enough_to_cover_the_latency_and_verify_on_the_simulator(tmp_path):
    # a 520-float row (2 KiB) and its mask per iteration: 2.6 KiB in flight per slot, where the
    # 910B2 needs about 17 KiB to cover 1,000 cycles of latency, so both input queues grow until
    # they share the 8 VECIN slots; the output queue keeps its two
    k = compile_verified(tmp_path, ROW_FILL, ROW_FILL_OP.replace("COLS", "520"), trials=2)
    notes = next(p for p in k.report["passes"] if p["name"] == "deepen")["notes"]
    assert sorted(re.sub(r"queue \w+ ", "", n) for n in notes) == [
        "holds 4 tiles of 2,304 bytes (to keep 16,898 bytes of loads in flight)",
        "holds 4 tiles of 768 bytes (to keep 16,898 bytes of loads in flight)"]


def test_tiles_that_carry_the_latency_alone_keep_two_slots(tmp_path):
    # an 8192-float row and its mask: 40 KiB per iteration is more than the latency needs
    level = _pipelined(tmp_path, 8192).final
    ctx = _ctx(level, load_chip("910B2"))
    assert Deepen().run(level.kernel, ctx) == level.kernel and not ctx.notes


def test_slots_are_handed_out_smallest_first_while_the_ub_has_room(tmp_path):
    level = _pipelined(tmp_path, 520).final
    chip = load_chip("910B2")
    env = const_values(level.kernel, _ctx(level, chip).envs()[0], level.real.cores)
    decls = {s.name: s for s in level.kernel.body if isinstance(s, A.Buffer)}
    used = sum(slot_bytes(b.type, env) * b.depth for b in decls.values())
    smallest = min((n for n, b in decls.items() if b.type.space == "vecin"), key=lambda n: slot_bytes(decls[n].type, env))
    # room for one more slot of the smallest queue, not for one of the row's
    tight = replace(chip, ub_bytes=used + SCALAR_RESERVE + slot_bytes(decls[smallest].type, env) + 32)
    deeper = Deepen().run(level.kernel, _ctx(level, tight))
    assert {s.name: s.depth for s in deeper.body if isinstance(s, A.Buffer)} == \
        {n: b.depth + (n == smallest) for n, b in decls.items()}
    # and with the slots of the position all taken, none are added
    full = replace(chip, max_buffers_per_position=sum(b.depth for b in decls.values() if b.type.space == "vecin"))
    assert Deepen().run(level.kernel, _ctx(level, full)) == level.kernel


def test_the_latency_bytes_follow_the_chip():
    b2 = load_chip("910B2")
    assert 16_000 < in_flight_bytes(b2) < 18_000          # 1,000 cycles at 16.9 bytes a cycle
    assert math.isclose(in_flight_bytes(replace(b2, aiv_cores=24)), 2 * in_flight_bytes(b2), rel_tol=1e-3)


def _ctx(level, chip):
    """What Deepen reads of a pass context: the chip, the cores and the real shapes' dims."""
    binding = level.real.binding
    return SimpleNamespace(chip=chip, notes=[], checked=SimpleNamespace(cores=level.real.cores),
                           envs=lambda: [{**binding.attrs, **binding.dims}])
