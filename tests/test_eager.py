"""The modeled eager baseline (ascendcraft/eager.py): op charges checked against sums done by
hand from the chip profile's own constants."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ascendcraft.chips import load_chip
from ascendcraft.eager import EagerEstimate, estimate_eager, estimate_eager_file
from ascendcraft.errors import UserError
from ascendcraft.task import load_task

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(ROOT.glob("examples/*/*/op.py"))
CHIP = load_chip("910B2")
HBM = CHIP.hbm_achievable_gbps * 1e3            # bytes per microsecond
LAUNCH = CHIP.launch_overhead_us


def op_file(tmp_path: Path, forward: str, inputs: str, init: str = "", constants: str = "") -> Path:
    """A task file whose Model.forward(*inputs) returns ``forward``."""
    body = constants + "\n" + textwrap.dedent(f"""\
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                {init or 'pass'}

            def forward(self, *args):
                x = args[0]
                return {forward}

        def get_inputs():
            return [{inputs}]

        def get_init_inputs():
            return []
        """)
    path = tmp_path / "op.py"
    path.write_text(body)
    return path


def load_and_estimate(path):
    return estimate_eager(load_task(path), load_chip("910B2"))


def names(est: EagerEstimate, kind: str | None = None) -> list[str]:
    return [op.name for op in est.ops if kind is None or op.kind == kind]


def test_silu_by_hand(tmp_path):
    n = 4096 * 1024
    est = estimate_eager_file(op_file(tmp_path, "x * torch.sigmoid(x)", "torch.randn(4096, 1024)"), "910B2")
    assert names(est) == ["aten.sigmoid.default", "aten.mul.Tensor"]
    sigmoid, mul = est.ops
    assert (sigmoid.bytes, mul.bytes) == (2 * n * 4, 3 * n * 4)   # x read; x and sigmoid(x) read, product written
    assert (sigmoid.kind, mul.kind, est.launches, est.macs) == ("memory", "memory", 2, 0)
    assert est.bytes == 5 * n * 4
    assert sigmoid.time_us == pytest.approx(2 * n * 4 / HBM + LAUNCH)
    assert est.time_us == pytest.approx(5 * n * 4 / HBM + 2 * LAUNCH)
    assert est.chip == "910B2"


def test_views_cost_nothing_and_the_copy_is_charged(tmp_path):
    n = 64 * 4096
    est = estimate_eager_file(op_file(tmp_path, "x.view(64, 256, 16).transpose(1, 2).contiguous()",
                                      "torch.rand(64, 4096)"))
    assert names(est, "view") == ["aten.view.default", "aten.transpose.int"]
    assert all(op.bytes == 0 and op.time_us == 0 for op in est.ops if op.kind == "view")
    assert names(est, "memory") == ["aten.clone.default"]
    assert est.launches == 1 and est.bytes == 2 * n * 4
    assert est.time_us == pytest.approx(2 * n * 4 / HBM + LAUNCH)


def test_broadcast_operand_and_repeated_operand_are_read_once(tmp_path):
    rows, cols = 512, 1000
    path = op_file(tmp_path, "(x + args[1]) * (x * x)", "torch.rand(512, 1000), torch.rand(1000)")
    add, sq, mul = load_and_estimate(path).ops
    assert add.bytes == (2 * rows * cols + cols) * 4      # bias read once, not once per row
    assert sq.bytes == 2 * rows * cols * 4                # x * x reads x once


@pytest.mark.parametrize("m,k,n,bound", [(4096, 4096, 4096, "cube"), (65536, 16, 16, "memory")])
def test_matmul_cube_or_memory_bound(tmp_path, m, k, n, bound):
    path = op_file(tmp_path, "torch.matmul(x, args[1])", f"torch.rand({m}, {k}).half(), torch.rand({k}, {n}).half()")
    est = estimate_eager_file(path, CHIP)
    (op,) = est.ops
    assert (op.name, op.kind, op.macs, est.macs) == ("aten.mm.default", "cube", m * n * k, m * n * k)
    assert op.bytes == (m * k + k * n + m * n) * 2
    cube_us = m * n * k / (CHIP.aic_cores * CHIP.cube_macs_per_cycle * CHIP.freq_mhz)   # fp16: the full rate
    hbm_us = op.bytes / HBM
    assert (cube_us > hbm_us) == (bound == "cube")
    assert op.time_us == pytest.approx(max(cube_us, hbm_us) + LAUNCH)


def test_linear_and_fused_attention(tmp_path):
    path = op_file(tmp_path, "torch.nn.functional.scaled_dot_product_attention(self.fc(x), args[1], args[1])",
                   "torch.rand(2, 4, 128, 64), torch.rand(2, 4, 256, 64)", init="self.fc = nn.Linear(64, 64)")
    est = estimate_eager_file(path)
    cube = [op for op in est.ops if op.kind == "cube"]
    assert [op.name for op in cube] == ["aten.addmm.default", "aten.scaled_dot_product_attention.default"]
    assert cube[0].macs == 2 * 4 * 128 * 64 * 64
    assert cube[1].macs == 2 * 4 * 128 * 256 * (64 + 64)   # Q K^T and P V, one fused kernel
    assert not any("softmax" in name or "bmm" in name for name in names(est))


def test_real_shapes_are_not_allocated(tmp_path):
    # 131072 x 131072 float32 is 64 GiB: tracing must stay on the meta device.
    path = op_file(tmp_path, "torch.relu(x)", "torch.rand(rows, cols)", constants="rows = 131072\ncols = 131072")
    est = estimate_eager_file(path)
    assert est.bytes == 2 * 131072 * 131072 * 4 and est.launches == 1


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.parent.name)
def test_bundled_examples(path):
    est = estimate_eager_file(path, "910B2")
    assert est.time_us > 0 and est.launches >= 1 and est.bytes > 0
    assert est.time_us == pytest.approx(sum(op.time_us for op in est.ops))
    data = est.to_json()
    assert data["launches"] == est.launches and len(data["ops"]) == len(est.ops)
    assert "910B2" in est.summary() and "\n" not in est.summary()


def test_untraceable_forward_is_a_user_error(tmp_path):
    path = op_file(tmp_path, "x * 2 if x.sum() > 0 else x", "torch.rand(8, 8)")
    task = load_task(path)   # the loader shapes it on the CPU; the estimate must not
    with pytest.raises(UserError) as info:
        estimate_eager(task)
    assert "meta device" in info.value.message and "op.py" in info.value.message
    assert "no modeled eager time" in info.value.hint


def test_bad_arguments():
    with pytest.raises(UserError, match="loaded task"):
        estimate_eager("op.py")
    with pytest.raises(UserError, match="unknown chip"):
        estimate_eager_file(EXAMPLES[0], "H100")


def test_import_does_not_load_torch():
    code = "import sys, ascendcraft.eager; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_causal_attention_counts_the_unmasked_pairs(tmp_path):
    path = op_file(tmp_path, "torch.nn.functional.scaled_dot_product_attention(x, x, x, is_causal=True)",
                   "torch.rand(3, 256, 64).half()")
    (op,) = estimate_eager_file(path).ops
    assert op.macs == 3 * (256 * 257 // 2) * (64 + 64)


def test_in_place_ops(tmp_path):
    n = 1000 * 1000
    est = estimate_eager_file(op_file(tmp_path, "torch.zeros_like(x).copy_(x).add_(1.0)", "torch.rand(1000, 1000)"))
    charged = {op.name: op.bytes for op in est.ops if op.kind != "view"}
    assert charged == {"aten.zeros_like.default": n * 4,  # x gives only the shape: not read
                       "aten.copy_.default": 2 * n * 4,     # overwrites: its destination is not read
                       "aten.add_.Tensor": 2 * n * 4}     # pointwise in place: reads and writes it
    assert est.launches == 3


@pytest.mark.parametrize("forward", ["torch.nn.functional.max_pool2d(x, 2)", "torch.max(x, dim=1)[0]"])
def test_outputs_nothing_reads_are_not_charged(tmp_path, forward):
    # max_pool2d_with_indices and max.dim also return int64 indices; the forward drops them,
    # so a vendor kernel need not write them and the lower bound does not charge them
    est = estimate_eager_file(op_file(tmp_path, forward, "torch.randn(8, 64, 64, 64)"), "910B2")
    x = 8 * 64 * 64 * 64 * 4
    y = x // 4 if "pool" in forward else x // 64
    (op,) = [o for o in est.ops if o.kind != "view"]
    assert op.bytes == x + y


# Ops whose outputs need a statistic of a whole unit (ascendcraft/eager_passes.py): a second pass
# over the input when one unit does not fit in all vector cores' UBs, from L2 when it fits there.
RESIDENT = CHIP.aiv_cores * CHIP.ub_bytes
L2_READ = CHIP.aiv_cores * min(CHIP.cost.l2_bpc.value, CHIP.mte2_bytes_per_cycle) * CHIP.freq_mhz
L2_WRITE = CHIP.aiv_cores * min(CHIP.cost.l2_bpc.value, CHIP.mte3_bytes_per_cycle) * CHIP.freq_mhz
F32 = 4


@pytest.mark.parametrize("forward, shape, op, unit_values, source", [
    ("torch.nn.functional.batch_norm(x, None, None, training=True)", (4, 2, 1024, 1024),
     "native_batch_norm", 4 * 1024 * 1024, "L2"),                              # a channel: N x H x W
    ("torch.nn.functional.group_norm(x, 1)", (2, 4, 1024, 1024), "native_group_norm", 4 * 1024 * 1024, "L2"),
    ("torch.nn.functional.layer_norm(x, (4 * 1024 * 1024,))", (2, 4 * 1024 * 1024), "native_layer_norm",
     4 * 1024 * 1024, "L2"),
    ("torch.softmax(x, 1)", (2, 64 * 1024 * 1024), "_softmax", 64 * 1024 * 1024, "HBM"),   # 256 MB rows > L2
    ("torch.log_softmax(x, 0)", (4 * 1024 * 1024, 2), "_log_softmax", 4 * 1024 * 1024, "L2"),
    ("torch.sort(x, 1)[0]", (1, 4 * 1024 * 1024), "sort", 4 * 1024 * 1024, "L2"),
])
def test_a_unit_larger_than_the_chip_is_charged_a_second_pass(tmp_path, forward, shape, op, unit_values, source):
    est = load_and_estimate(op_file(tmp_path, forward, f"torch.randn{shape}"))
    (charged,) = [o for o in est.ops if o.passes]
    assert charged.name.startswith(f"aten.{op}.")
    assert unit_values * F32 > RESIDENT
    data = F32 * shape[0] * shape[1] * (shape[2] * shape[3] if len(shape) == 4 else 1)
    sort = op == "sort"
    extra = data * (2 if sort else 1)                # sort writes its runs and reads them back
    read, write = (L2_READ, L2_WRITE) if source == "L2" else (HBM, HBM)
    assert charged.time_us == pytest.approx((charged.bytes - extra) / HBM + LAUNCH + data / read
                                            + (data / write if sort else 0.0))
    assert f"{unit_values:,} values" in charged.passes and f"from {source}" in charged.passes


@pytest.mark.parametrize("forward, shape", [
    ("torch.nn.functional.batch_norm(x, torch.zeros(2), torch.ones(2), training=False)", (4, 2, 1024, 1024)),
    ("torch.nn.functional.group_norm(x, 4)", (2, 4, 1024, 512)),      # a group of 2 MB: resident on the chip
    ("torch.softmax(x, 1)", (4096, 393216)),                          # rows of 1.5 MB: the same
    ("torch.sort(x, 0)[0]", (4096, 64)),
    ("torch.sum(x, 1)", (2, 64 * 1024 * 1024)),                       # the output is the statistic itself
])
def test_a_unit_that_fits_on_the_chip_is_one_pass(tmp_path, forward, shape):
    est = load_and_estimate(op_file(tmp_path, forward, f"torch.randn{shape}"))
    assert not any(o.passes for o in est.ops)
    assert est.time_us == pytest.approx(est.bytes / HBM + est.launches * LAUNCH)
