"""Kernel specs for the codegen tests: a real LeakyReLU kernel and a wider spec for the skeletons."""
import tempfile
from functools import lru_cache
from pathlib import Path

from ascendcraft.codegen.spec import AttrArg, KernelSpec, TensorArg, TilingField

HERE = Path(__file__).parent


def leaky_relu_spec() -> KernelSpec:
    """LeakyReLU over x: f32[B, N] with a float attribute; the float field is declared first on purpose."""
    return KernelSpec(
        op_name="leaky_relu_custom", op_type="LeakyReluCustom",
        inputs=(TensorArg("x", "f32", ("B", "N")),), outputs=(TensorArg("y", "f32", ("B", "N")),),
        attrs=(AttrArg("negative_slope", "f32", 0.01),),
        tiling_struct="LeakyReluCustomTilingData",
        tiling_fields=(TilingField("negative_slope", "float", ("attr", "negative_slope")),
                       TilingField("B", "int64_t", ("dim", "x", 0)),
                       TilingField("N", "int64_t", ("dim", "x", 1))),
        kernel_source=(HERE / "leaky_relu_custom.cpp").read_text())


_SCALE_SHIFT_KERNEL = """#include "kernel_operator.h"

extern "C" __global__ __aicore__ void scale_shift_custom(GM_ADDR x, GM_ADDR w, GM_ADDR y, GM_ADDR s,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    (void)t;
}
"""


def scale_shift_spec() -> KernelSpec:
    """Two inputs (one a model parameter), a fixed extent, three attribute kinds, two outputs and scratch."""
    return KernelSpec(
        op_name="scale_shift_custom", op_type="ScaleShiftCustom",
        inputs=(TensorArg("x", "f32", ("B", "N")), TensorArg("w", "f16", ("N", 4), is_parameter=True)),
        outputs=(TensorArg("y", "f32", ("B", "N")), TensorArg("s", "f32", ("B",))),
        attrs=(AttrArg("alpha", "f32", 0.5), AttrArg("steps", "i32", 3), AttrArg("flag", "bool", True)),
        tiling_struct="ScaleShiftCustomTilingData",
        tiling_fields=(TilingField("B", "int64_t", ("dim", "x", 0)), TilingField("alpha", "float", ("attr", "alpha")),
                       TilingField("N", "int64_t", ("dim", "w", 0)), TilingField("steps", "int64_t", ("attr", "steps")),
                       TilingField("flag", "int64_t", ("attr", "flag")), TilingField("S", "int64_t", ("dim", "s", 0))),
        kernel_source=_SCALE_SHIFT_KERNEL,
        workspace_bytes="((int64_t)(AscendC::GetBlockNum()) * (int64_t)(N) * 4 + 31) / 32 * 32")


def _after_passes(kernel, op: Path) -> KernelSpec:
    """``kernel`` (text or a path) for the op file ``op`` after the whole pass chain (no build)."""
    from ascendcraft.chips import load_chip
    from ascendcraft.codegen.kernel import emit_kernel
    from ascendcraft.lower import default_passes
    from ascendcraft.passes import run_passes
    from ascendcraft.checking import load_kernel
    from ascendcraft.task import load_task

    task = load_task(op)
    run = run_passes(load_kernel(kernel), default_passes(), task=task, shapes=task.shapes(),
                     chip=load_chip("910B2"), trials=1)
    return emit_kernel(run.final.kernel, run.final.real)


def lowered_spec(example: str) -> KernelSpec:
    """The spec of a bundled example (``category/name``) as the lowering emits it."""
    d = HERE.parents[1] / "examples" / example
    return _after_passes(d / "kernel.dsl", d / "op.py")


def matmul_bias_relu_spec() -> KernelSpec:
    """A MIX kernel: a Matmul API phase (transposed B) then a vector epilogue."""
    return lowered_spec("fuse/matmul_bias_relu")


@lru_cache(maxsize=None)
def lowered_text_spec(kernel: str, op_source: str) -> KernelSpec:
    """``kernel`` (DSL text) for an op file of ``op_source`` as the lowering emits it."""
    with tempfile.TemporaryDirectory() as d:
        op = Path(d) / "op.py"
        op.write_text(op_source)
        return _after_passes(kernel, op)


def lowered_project(root: Path, kernel: str, op_source: str):
    """``kernel`` for an op file of ``op_source`` (written to ``root/op.py``) lowered and verified on
    the simulator (lower raises otherwise), its output folder written to ``root/out`` (the CANN
    project in ``root/out/project``): the lowering."""
    from ascendcraft.lower import lower
    from ascendcraft.results import write_lowered
    (root / "op.py").write_text(op_source)
    result = lower(kernel, root / "op.py", backend="sim", trials=1, model_time=False)
    (root / "out").mkdir()
    write_lowered(result, root / "out")
    return result
