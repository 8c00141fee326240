"""What the emitter knows about a lowered kernel: the contract between the lowering
passes (which produce the kernel body) and the project skeletons (tiling header, host
tiling, launcher, CMake, bindings, MultiKernelBench exports), which only read this.
"""
from __future__ import annotations

from dataclasses import dataclass

# DSL dtype -> AscendC C++ element type.
CTYPES = {"f16": "half", "bf16": "bfloat16_t", "f32": "float", "i8": "int8_t", "i16": "int16_t",
          "i32": "int32_t", "i64": "int64_t", "u8": "uint8_t", "bool": "bool"}
# DSL dtype -> ge::DataType enumerator used by OpDef and aclnn.
GE_DTYPES = {"f16": "ge::DT_FLOAT16", "bf16": "ge::DT_BF16", "f32": "ge::DT_FLOAT", "i8": "ge::DT_INT8",
             "i16": "ge::DT_INT16", "i32": "ge::DT_INT32", "i64": "ge::DT_INT64", "u8": "ge::DT_UINT8",
             "bool": "ge::DT_BOOL"}
# DSL dtype -> torch dtype name.
TORCH_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "i8": "int8", "i16": "int16",
                "i32": "int32", "i64": "int64", "u8": "uint8", "bool": "bool"}


@dataclass(frozen=True)
class TensorArg:
    """A GM tensor of the kernel. ``shape`` holds dim names (bound from the op) or ints.

    ``stars``: the dims of ``shape`` that are star dims (``x: gm f32[*A(dim), D, *B]``): each stands
    for a run of the op tensor's axes, flattened (ascendcraft.dsl.star_groups; the host reads them
    through codegen/host_shapes.py), so the op's tensor may have any rank."""

    name: str
    dtype: str                      # DSL dtype
    shape: tuple[str | int, ...]
    is_parameter: bool = False      # a model parameter (state_dict entry), not a forward() argument
    stars: tuple[str, ...] = ()
    default: float | None = None    # an optional input: the value that fills it when the op leaves it out
    #: the dtype of each instance of a generic kernel the operator serves (codegen/variants.py: the
    #: OpDef's DataType column per instance); () when it serves ``dtype`` alone
    dtypes: tuple[str, ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """The dtypes the operator registers for this tensor, one per OpDef column."""
        return self.dtypes or (self.dtype,)

    @property
    def star(self) -> bool:
        """Whether the op's tensor may have any rank (a star dim among the axes)."""
        return bool(self.stars)


@dataclass(frozen=True)
class AttrArg:
    """A scalar attribute (``eps: f32 = 1e-5``)."""

    name: str
    dtype: str
    default: float | int | None


@dataclass(frozen=True)
class TilingField:
    """One field of the tiling struct and where the host reads its value.

    ``source`` is ``("dim", tensor_name, axis)`` for a shape extent of an input or output,
    or ``("attr", attr_name)`` for a scalar attribute.
    """

    name: str
    ctype: str                      # "int64_t" or "float"
    source: tuple


@dataclass(frozen=True)
class KernelSpec:
    op_name: str                    # snake_case kernel entry name, e.g. "softmax_custom"
    op_type: str                    # CamelCase op type, e.g. "SoftmaxCustom"
    inputs: tuple[TensorArg, ...]
    outputs: tuple[TensorArg, ...]
    attrs: tuple[AttrArg, ...]
    tiling_struct: str              # e.g. "SoftmaxCustomTilingData"
    tiling_fields: tuple[TilingField, ...]
    kernel_source: str              # the kernel .cpp: `extern "C" __global__ __aicore__ void <op_name>(
                                    #   GM_ADDR <inputs>..., GM_ADDR <outputs>..., GM_ADDR workspace, GM_ADDR tiling)`
    core_type: str = "aiv"          # "aiv" (vector only), "aic" (cube only), "mix" or "mixtaps" (codegen/emit_common.py)
    workspace_bytes: str = "0"      # C++ expression over tiling field names and CORES (the block dim,
                                    # AscendC::GetBlockNum() in the kernel): user workspace (scratch tensors)
    dsl_lines: tuple[tuple[int, int], ...] = ()  # (kernel_source line, the DSL line it was emitted for)
    scratch: tuple[tuple[str, str, int], ...] = ()  # (name, bytes as host C++, element bytes) of each scratch
                                    # tensor, in the order Init lays them out in the user workspace
    #: per argument of the reference's ``Model.forward``, the kernel input (tensor or attribute) it
    #: binds to, or None for one the kernel leaves out (binding._forward_params); () when unknown:
    #: then the forward tensors are the kernel's tensor inputs in order
    forward: tuple[str | None, ...] = ()
    #: the names of those arguments in ``Model.forward`` (parallel to ``forward``): ModelNew takes
    #: them as keywords too; () when unknown (then positional only)
    forward_keywords: tuple[str, ...] = ()
    #: ``*A(dim)``: star dim -> the attribute (or number) that counts its axes (dsl.star_groups)
    star_counts: tuple[tuple[str, str | int], ...] = ()
    #: axes sized by a const (``const M = N + left + right``, ``y: gm T[*B, M]``): (name, its value as
    #: host C++ over tiling field names), which the host computes where it needs the extent
    extents: tuple[tuple[str, str], ...] = ()
    #: an operator of several instances (codegen/variants.py): the first instance's own kernel, which
    #: the direct-call pieces build (they launch one dtype, without a tiling key); "" otherwise
    instance_source: str = ""

    def dsl_line(self, cpp_line: int | None) -> int | None:
        """The line of the writer's DSL kernel that kernel_source line ``cpp_line`` implements."""
        return dict(self.dsl_lines).get(cpp_line) if cpp_line else None
