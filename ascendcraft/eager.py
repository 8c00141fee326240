"""A modeled PyTorch-eager baseline: a lower bound on torch_npu eager time for an op.

MultiKernelBench compares a generated kernel with the op's PyTorch forward run eagerly on
the NPU. With no NPU at hand this module *models* that time. It runs ``Model.forward`` once
at the task's real shapes on torch's ``meta`` device (shapes and dtypes only, nothing
allocated), records every aten op the forward dispatches, and charges each one what a
vendor kernel at its own roofline would take:

* views (``view``, ``transpose``, ``expand``, ``split``, ``detach``, ...), in-place metadata
  changes and uninitialised allocations (``empty``): no kernel, 0 µs, no launch;
* matmul-like ops (``mm``, ``bmm``, ``addmm``, ``baddbmm``, ``linear``, ``convolution``,
  ``scaled_dot_product_attention``, ...):
  ``max(MACs / whole-chip cube rate, bytes / achievable HBM rate) + launch``;
* every other op (elementwise, reductions, copies, factories, random): ``bytes / achievable
  HBM rate + launch``;
* an op whose outputs each need a statistic of a unit too large to keep on chip (training-mode
  batch norm, group norm, layer norm, softmax and log-softmax over long rows, sort) is charged
  the second pass over its input it must make (``ascendcraft/eager_passes.py``), with the
  reason in ``EagerOp.passes``.

``bytes`` are the distinct bytes of the op's tensor inputs read plus its outputs written
(a broadcast operand counts once, a Python number not at all). The chip profile supplies
``hbm_achievable_gbps``, ``aic_cores × cube_macs_per_cycle × freq_mhz`` (scaled by the
operand dtype's cube rate, as in the simulator) and ``launch_overhead_us``.

Why the sum is a lower bound on real eager time, and what it leaves out:

* every kernel runs at its roofline: no tiling, tail, pipeline-fill or multi-core imbalance
  loss, and bytes move at the achievable HBM rate even when an op is too small to reach it;
* no L2 benefit beyond that roofline is assumed, and no fusion torch_npu does not do: each
  aten op the forward dispatches is its own kernel and round trip through HBM. The one
  composite op charged as a single kernel is ``scaled_dot_product_attention``, which device
  backends run as one fused attention kernel (its math decomposition is only the fallback);
  other composite ops are charged as the aten ops PyTorch decomposes them into;
* host time is one ``launch_overhead_us`` per kernel and nothing else: no Python, dispatcher
  or allocator time, no synchronisation, and no extra kernels torch_npu may add (format
  casts, ``contiguous`` copies for kernels that need them, AI CPU fallbacks);
* partial in-place updates (``index_put_``, ``scatter_``, ``masked_fill_``) are charged as
  writing their whole destination, the one place where traffic may be above the minimum.

A forward that cannot run without data (``.item()``, ``if x.sum() > 0``, ``nonzero``, an op
with no meta kernel) has no estimate: :func:`estimate_eager` raises a UserError, never a
made-up number.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .chips import DEFAULT_CHIP, Chip, load_chip
from .eager_passes import Multipass, extra_pass, multipass_of
from .errors import UserError

if TYPE_CHECKING:  # torch is imported inside the functions: CLI paths import this module
    from .task import Task

#: Ops that run no device kernel although their schema does not say they alias an input:
#: ``_unsafe_view`` is a view of a fresh tensor (reshape's decomposition emits it), the
#: ``empty`` family only allocates, and ``scalar_tensor`` wraps a Python number, which a
#: device backend passes to its kernel by value. ``_to_copy`` is not here: ``Tensor.to``
#: returns the tensor itself without dispatching when dtype, device and layout already
#: match, so a recorded ``_to_copy`` is always a real cast or copy.
_NO_KERNEL = frozenset({"_unsafe_view", "empty", "empty_like", "empty_strided", "empty_permuted",
                        "new_empty", "new_empty_strided", "scalar_tensor"})

#: Matmul-like ops (by base name) and the argument holding the cube's first operand, whose
#: dtype sets the cube rate.
_CUBE_OPERAND = {
    "mm": "self", "bmm": "self", "_int_mm": "self", "matmul": "self", "mv": "self", "dot": "self",
    "vdot": "self", "addmm": "mat1", "_addmm_activation": "mat1", "baddbmm": "batch1",
    "addbmm": "batch1", "addmv": "mat", "linear": "input", "convolution": "input",
    "_convolution": "input", "convolution_overrideable": "input", "conv1d": "input",
    "conv2d": "input", "conv3d": "input", "conv_transpose1d": "input", "conv_transpose2d": "input",
    "conv_transpose3d": "input", "scaled_dot_product_attention": "query",
}

#: Name under which a fused scaled_dot_product_attention is reported.
SDPA = "aten.scaled_dot_product_attention.default"


@dataclass(frozen=True)
class EagerOp:
    """One aten op of the traced forward and what it is charged."""

    name: str       # e.g. "aten.mul.Tensor"
    bytes: int      # distinct bytes of tensor inputs read + outputs written (0 for a view)
    macs: int       # multiply-accumulates; 0 unless matmul-like
    time_us: float  # roofline time + one launch; 0 for a view
    kind: str       # "view" (no kernel) | "memory" | "cube"
    passes: str | None = None   # why it is charged more than one pass over its input (eager_passes.py)

    def to_json(self) -> dict:
        return {"name": self.name, "kind": self.kind, "bytes": self.bytes, "macs": self.macs,
                "time_us": self.time_us, "passes": self.passes}


@dataclass(frozen=True)
class EagerEstimate:
    """The modeled eager time of one op's forward at its real shapes (a lower bound)."""

    ops: tuple[EagerOp, ...]
    time_us: float
    launches: int
    bytes: int
    macs: int
    chip: str

    def to_json(self) -> dict:
        return {"chip": self.chip, "time_us": self.time_us, "launches": self.launches, "bytes": self.bytes,
                "macs": self.macs, "ops": [op.to_json() for op in self.ops]}

    def summary(self) -> str:
        macs = f", {self.macs / 1e9:,.3g} GMAC" if self.macs else ""
        return (f"modeled eager lower bound on {self.chip}: {self.time_us:,.1f} us "
                f"({self.launches} kernel launch{'es' if self.launches != 1 else ''}, "
                f"{self.bytes / 1e6:,.1f} MB moved{macs})")


@dataclass(frozen=True)
class _Call:
    """A recorded op before it is charged on a chip."""

    name: str
    kind: str
    bytes: int
    macs: int
    cube_dtype: str | None   # DSL dtype name of the cube operand (cube ops only)
    read_from: frozenset = frozenset()   # storages of the tensors it reads
    written: tuple = ()                  # (storage, bytes) of each distinct tensor it writes
    multipass: Multipass | None = None   # an op that may need more than one pass over its input


# --------------------------------------------------------------------------- public API

def estimate_eager(task: "Task", chip: str | Chip = DEFAULT_CHIP) -> EagerEstimate:
    """The modeled eager time of ``task``'s forward at its real shapes on ``chip`` (a name or
    a :class:`~ascendcraft.chips.Chip`). See the module docstring for the model."""
    from .task import Task

    if not isinstance(task, Task):
        raise UserError(f"estimate_eager takes a loaded task, not {type(task).__name__}",
                        hint="estimate_eager(load_task('op.py'), '910B2'), or estimate_eager_file('op.py')")
    chip = load_chip(chip) if isinstance(chip, str) else chip
    if not isinstance(chip, Chip):
        raise UserError(f"a chip is a chip name or a Chip, not {type(chip).__name__}")
    return _charge(_trace(task), chip)


def estimate_eager_file(op_path: str | Path, chip: str | Chip = DEFAULT_CHIP) -> EagerEstimate:
    """:func:`estimate_eager` of the task file (or folder holding ``op.py``) at ``op_path``."""
    from .task import load_task

    return estimate_eager(load_task(op_path), chip)


# --------------------------------------------------------------------------- charging

def _cube_macs_per_us(chip: Chip, dtype: str | None) -> float:
    from .sim.cost import CUBE_RATE

    # A dtype the cube table does not list gets its fastest rate: the bound stays a lower one.
    rate = CUBE_RATE.get(dtype, max(CUBE_RATE.values()))
    # cube_macs_per_cycle is one AI Cube core's fp16 rate; freq_mhz is cycles per microsecond.
    return chip.aic_cores * chip.cube_macs_per_cycle * rate * chip.freq_mhz


def _charge(calls: list[_Call], chip: Chip) -> EagerEstimate:
    hbm_bytes_per_us = chip.hbm_achievable_gbps * 1e3   # GB/s = 1e3 bytes per microsecond
    ops = []
    for c in calls:
        if c.kind == "view":
            ops.append(EagerOp(c.name, 0, 0, 0.0, "view"))
            continue
        body = c.bytes / hbm_bytes_per_us
        if c.kind == "cube":
            body = max(body, c.macs / _cube_macs_per_us(chip, c.cube_dtype))
        extra, extra_us, why = extra_pass(c.multipass, chip) if c.multipass is not None else (0, 0.0, None)
        ops.append(EagerOp(c.name, c.bytes + extra, c.macs, body + extra_us + chip.launch_overhead_us, c.kind, why))
    return EagerEstimate(ops=tuple(ops), time_us=sum(op.time_us for op in ops),
                         launches=sum(op.kind != "view" for op in ops), bytes=sum(op.bytes for op in ops),
                         macs=sum(op.macs for op in ops), chip=chip.name)


# --------------------------------------------------------------------------- tracing

_HINT = ("the eager estimate runs Model.forward at the real shapes on torch's meta device, without data: "
         "control flow or values that depend on tensor contents (.item(), .tolist(), `if x.sum() > 0`, "
         "nonzero, boolean-mask indexing) and ops with no meta kernel cannot be traced, so this op has "
         "no modeled eager time")


def _trace(task: "Task") -> list[_Call]:
    """The aten ops Model.forward dispatches at the task's real shapes, run on meta.

    Why a recording TorchDispatchMode rather than make_fx or torch.export: make_fx is itself
    a dispatch mode at this level (below autograd, after CompositeImplicitAutograd
    decompositions: the ops eager hands to device kernels), so both see the same ops.
    Recording directly keeps three things simple that a graph makes awkward: each op's own
    meta tensors are at hand (strides and storage, so broadcast and repeated operands count
    once; no FakeTensor snapshots, getitem nodes or get_attr constants to resolve);
    scaled_dot_product_attention is charged as one fused kernel by muting the recorder while
    its meta decomposition runs (in a graph its pieces would have to be found and dropped);
    and every factory and operand is pinned to meta. torch.export brings a heavier tracer
    and a graph above the decompositions eager runs (linear, conv2d), to be decomposed again.
    """
    shapes = task.shapes(full=True)
    return _trace_at(shapes._mod, shapes.input_specs, shapes.init_args, str(task.path))


def reference_macs(task: "Task", overrides: dict[str, int]) -> int | None:
    """The multiply-accumulates ``Model.forward`` dispatches with the module constants
    ``overrides`` (traced on meta like the estimate): the work any kernel for the op does at those
    shapes, which the simulator's run time follows. None when the forward cannot be traced."""
    ev = task._eval(overrides, 0)
    if not ev.valid:
        return None
    try:
        calls = _trace_at(task._execute(overrides), ev.input_specs, ev.init_args, str(task.path))
    except UserError:
        return None
    return sum(c.macs for c in calls)


def _trace_at(mod, input_specs, init_args, filename: str) -> list[_Call]:
    """:func:`_trace` of the op module ``mod`` on inputs of ``input_specs``."""
    import torch

    from .opfile import OP_ERRORS, op_failure, running_op

    inputs = [_meta_input(s) for s in input_specs]
    recorder = _recorder_class()()
    stage = "building Model(*get_init_inputs()) on the meta device for the eager estimate"
    # As Task runs the forward on meta (opfile.evaluate): under its CPU-time limit, with
    # no_grad, and with the op file's failures turned into UserErrors.
    try:
        with running_op(filename), torch.random.fork_rng(devices=[]), torch.device("meta"), torch.no_grad():
            model = mod.model(*init_args)
            stage = "tracing Model.forward on the meta device for the eager estimate"
            with _fused_attention_class()(recorder), recorder:
                result = model(*inputs)
    except UserError:
        raise
    except OP_ERRORS as e:  # noqa: BLE001 - the op file's failure, reported as a UserError
        raise op_failure(stage, e, filename, hint=_HINT) from None
    return _without_unused_writes(recorder.calls, {_storage(t) for t in _tensors(result)})


def _without_unused_writes(calls: list[_Call], returned: set) -> list[_Call]:
    """Drop the bytes of outputs nothing reads afterwards and the forward does not return (the
    indices of a max_pool2d or a max over a dim the caller discards, batch norm's saved
    statistics): a vendor kernel need not write them, and a lower bound must not charge them."""
    from dataclasses import replace

    used = set(returned)
    kept = []
    for c in reversed(calls):
        unused = sum(b for storage, b in c.written if storage not in used)
        kept.append(replace(c, bytes=c.bytes - unused) if unused else c)
        used |= c.read_from
    return kept[::-1]


def _storage(t):
    """The storage a tensor's data lives in (views share it)."""
    import torch

    return t.untyped_storage()._cdata if t.layout == torch.strided else id(t)


def _written(tensors) -> tuple:
    """(storage, bytes) of each distinct tensor (see _key): an operand passed twice counts once."""
    seen = {}
    for t in tensors:
        seen.setdefault(_key(t), (_storage(t), _own_bytes(t)))
    return tuple(seen.values())


def _meta_input(spec):
    """A meta tensor for a TensorSpec (its shape and dtype); a Python number as it is."""
    import torch

    from .tensorspec import TORCH_DTYPES, TensorSpec

    if not isinstance(spec, TensorSpec):
        return spec
    dtype = next(t for t, name in TORCH_DTYPES.items() if name == spec.dtype)
    return torch.empty(spec.shape, dtype=dtype, device="meta")


def _own_bytes(t) -> int:
    """Bytes of the distinct elements a tensor addresses: a broadcast (stride-0) dim counts
    once, and overlapping windows (unfold) count no more than their address span."""
    import torch

    n = t.numel()
    if n == 0:
        return 0
    if t.layout != torch.strided:
        return n * t.element_size()
    count = span = 1
    for size, stride in zip(t.shape, t.stride()):
        if stride:
            count *= size
        span += (size - 1) * abs(stride)
    return min(count, span) * t.element_size()


def _key(t):
    """Identity of a tensor's data, so an operand passed twice (x * x) is read once."""
    import torch

    if t.layout != torch.strided:
        return id(t)
    return (t.untyped_storage()._cdata, t.storage_offset(), tuple(t.shape), t.stride(), t.dtype)


def _tensors(value) -> list:
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _tensors(v)]
    return []


def _distinct_bytes(tensors) -> int:
    return sum(nbytes for _, nbytes in _written(tensors))


def _no_kernel(func, base: str) -> bool:
    """Whether an op runs no device kernel, decided from its schema where possible: an op
    whose every result aliases an input without writing it is a view (view, expand, split,
    detach, ...); one tagged inplace_view only changes a tensor's metadata (t_, squeeze_)."""
    import torch

    if torch.Tag.inplace_view in func.tags:
        return True
    returns = func._schema.returns
    if returns and all(r.alias_info is not None and not r.alias_info.is_write for r in returns):
        return True
    return base in _NO_KERNEL


def _macs(base: str, bound: dict, out: list) -> int:
    """Multiply-accumulates of a matmul-like op from its operand and result shapes."""
    if not out:
        return 0
    y = out[0]
    if base == "addbmm":                                    # the batch is summed into one M x N result
        return bound["batch1"].numel() * bound["batch2"].shape[-1]
    if base in ("dot", "vdot"):
        return bound["self"].numel()
    if base == "scaled_dot_product_attention":
        q, k, v = bound["query"], bound["key"], bound["value"]
        rows, cols = q.shape[-2], k.shape[-2]
        heads = y.numel() // max(1, rows * v.shape[-1])   # batch x heads
        # Q K^T and P V over the (query, key) pairs computed; a causal (top-left) mask
        # leaves min(i + 1, S) keys for query i, which a fused kernel skips the rest of.
        pairs = rows * cols
        if bound.get("is_causal"):
            diag = min(rows, cols)
            pairs = diag * (diag + 1) // 2 + (rows - diag) * cols
        return heads * pairs * (q.shape[-1] + v.shape[-1])
    if "conv" in base:
        w = bound["weight"]
        per = math.prod(w.shape[1:])                       # C_in/groups x kernel (C_out/groups x kernel if transposed)
        transposed = bool(bound.get("transposed", False)) or base.startswith("conv_transpose")
        return (bound["input"].numel() if transposed else y.numel()) * per
    a = bound[_CUBE_OPERAND[base]]
    return y.numel() * a.shape[-1]                         # every output sums over the operand's last dim (K)


def _bind(func, args: tuple, kwargs: dict) -> list[tuple[object, object]]:
    """(schema argument, value) pairs of one call."""
    schema_args = func._schema.arguments
    pairs = [(a, args[i]) for i, a in enumerate(schema_args[:len(args)])]
    pairs += [(a, kwargs[a.name]) for a in schema_args[len(args):] if a.name in kwargs]
    return pairs


def _call_of(func, args: tuple, kwargs: dict, out) -> _Call:
    """What one dispatched op moves and computes."""
    import torch

    from .tensorspec import TORCH_DTYPES

    name = str(func)
    base = func._schema.name.split("::")[-1]
    if _no_kernel(func, base):
        return _Call(name, "view", 0, 0, None)
    pairs = _bind(func, args, kwargs)
    pointwise = torch.Tag.pointwise in func.tags
    # Factories named after a tensor (zeros_like, randn_like, new_full) take only its shape and dtype.
    factory = base.endswith("_like") or base.startswith("new_")
    reads, mutated = [], []
    for arg, value in pairs:
        written = arg.alias_info is not None and arg.alias_info.is_write
        if written:
            mutated += _tensors(value)
        # An out= argument is only written; an in-place destination is read too only by a
        # pointwise op (add_ reads it, copy_/fill_/uniform_ overwrite it).
        if factory or arg.is_out or (written and not pointwise):
            continue
        reads += _tensors(value)
    outs = _tensors(out)
    writes = outs if func._schema.returns else mutated   # ops returning nothing mutate their arguments
    nbytes = _distinct_bytes(reads) + _distinct_bytes(writes)
    flow = {"read_from": frozenset(_storage(t) for t in reads), "written": _written(writes)}
    bound = {a.name: v for a, v in pairs}
    if base not in _CUBE_OPERAND:
        return _Call(name, "memory", nbytes, 0, None, **flow, multipass=multipass_of(base, bound))
    operand = bound.get(_CUBE_OPERAND[base])
    dtype = TORCH_DTYPES.get(operand.dtype) if isinstance(operand, torch.Tensor) else None
    return _Call(name, "cube", nbytes, _macs(base, bound, outs), dtype, **flow)


@functools.cache
def _recorder_class():
    """The dispatch mode that records each aten op (built on first use: torch loads lazily)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_map_only

    meta = torch.device("meta")

    def on_meta(t):
        return t if t.device.type == "meta" else t.to(meta)

    class Recorder(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.calls: list[_Call] = []
            self.muted = 0   # > 0 inside an op charged as one fused kernel
            self.alive: list = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            # Everything stays on meta: a factory naming another device, or a CPU tensor the
            # op file keeps at module level, must not allocate or compute at the real size.
            args, kwargs = tree_map_only(torch.Tensor, on_meta, (tuple(args), kwargs))
            args = list(args)
            for i, a in enumerate(func._schema.arguments):
                if a.name == "device":
                    if i < len(args) and args[i] is not None:
                        args[i] = meta
                    elif kwargs.get("device") is not None:
                        kwargs["device"] = meta
            out = func(*args, **kwargs)
            self.alive.append(out)   # storages stay distinct for the whole trace (no address reuse)
            if not self.muted:
                self.calls.append(_call_of(func, tuple(args), kwargs, out))
            return out

    return Recorder


@functools.cache
def _fused_attention_class():
    """A torch-function mode that records scaled_dot_product_attention as one fused kernel
    (the recorder is muted while its meta decomposition computes the result's shape)."""
    import torch
    from torch.overrides import TorchFunctionMode

    from .tensorspec import TORCH_DTYPES

    sdpa = torch.nn.functional.scaled_dot_product_attention
    params = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal")

    class FusedAttention(TorchFunctionMode):
        def __init__(self, recorder):
            super().__init__()
            self.recorder = recorder

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func is not sdpa:
                return func(*args, **kwargs)
            self.recorder.muted += 1
            try:
                out = func(*args, **kwargs)
            finally:
                self.recorder.muted -= 1
            bound = {**dict(zip(params, args)), **kwargs}
            operands = [bound[n] for n in params[:4] if isinstance(bound.get(n), torch.Tensor)]
            nbytes = _distinct_bytes(operands) + _distinct_bytes(_tensors(out))
            macs = _macs("scaled_dot_product_attention", bound, _tensors(out))
            self.recorder.calls.append(_Call(SDPA, "cube", nbytes, macs, TORCH_DTYPES.get(bound["query"].dtype),
                                             frozenset(_storage(t) for t in operands), _written(_tensors(out))))
            return out

    return FusedAttention
