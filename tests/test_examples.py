"""The bundled examples (examples/<category>/<op>/{op.py,kernel.dsl}).

* every kernel passes ``check_kernel`` (parse, bind, check, interpret, compare with
  PyTorch) at the example's own shapes;
* every kernel also passes the static checker (types, shapes, UB/L1/L0C footprint) at
  the MultiKernelBench 2026 shapes written in its op.py (``# MKB 2026 shapes: ...``),
  so every kernel is known to fit the chip at the real sizes, not only at the small
  shapes it is run at;
* the set covers the seven AscendCraft categories (at least two each), matmul and fuse;
* the examples' inputs are chosen to catch plausible mistakes: a few broken variants of
  the kernels must fail verification.
"""
from __future__ import annotations

import inspect
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from ascendcraft.mkb_shapes import mkb_2026_constants, with_constants

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNELS = sorted(EXAMPLES.glob("*/*/kernel.dsl"))
#: other forms of an example's op kept beside its kernel (phases.dsl: the unfused form a fused kernel
#: is measured against, benchmarks/fused_bench.py)
VARIANTS = sorted(k for k in EXAMPLES.glob("*/*/*.dsl") if k.name != "kernel.dsl")
#: the examples with MultiKernelBench 2026 sizes (the others are group tasks: their groups are their sizes)
MKB_KERNELS = [k for k in KERNELS if "get_input_groups" not in (k.parent / "op.py").read_text()]
CATEGORIES = ("activation", "loss", "math", "normalization", "optimizer", "pooling", "reduce")


def _id(path: Path) -> str:
    return f"{path.parent.parent.name}/{path.parent.name}"


def mkb_constants(op_path: Path) -> dict[str, int]:
    """The module constants of the MultiKernelBench 2026 version of an example's op."""
    return mkb_2026_constants(op_path.read_text(), str(op_path))


def mkb_shapes(op_path: Path):
    """Shapes of the op at the MKB 2026 constants, worked out on torch's meta device
    (nothing is allocated: these tensors are several GB)."""
    from ascendcraft.tensorspec import TensorSpec

    source = with_constants(op_path.read_text(), mkb_constants(op_path), str(op_path))
    ns: dict = {"__name__": "mkb_" + op_path.parent.name}
    exec(compile(source, str(op_path), "exec"), ns)  # noqa: S102 - our own example file
    with torch.device("meta"), torch.no_grad():
        inputs = ns["get_inputs"]()
        init_args = ns["get_init_inputs"]()
        model = ns["Model"](*init_args)
        out = model(*inputs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    sig = inspect.signature(ns["Model"].__init__)
    bound = sig.bind(None, *init_args)
    bound.apply_defaults()
    attrs = {k: v for k, v in ns.items() if not k.startswith("_") and isinstance(v, (bool, int, float))}
    attrs.update({k: v for k, v in list(bound.arguments.items())[1:]})
    return SimpleNamespace(
        input_names=tuple(inspect.signature(ns["Model"].forward).parameters)[1:1 + len(inputs)],
        input_specs=tuple(TensorSpec.of(x) if isinstance(x, torch.Tensor) else x for x in inputs),
        output_specs=tuple(TensorSpec.of(o) for o in outs),
        parameters={k.replace(".", "_"): TensorSpec.of(v) for k, v in model.state_dict().items()},
        attributes=attrs)


def mkb_check(example: Path) -> str:
    """Statically check an example's kernel at the MKB 2026 shapes, the lowering's buffer plan
    included (the passes run there without the interpreter, as ``check`` runs them: a tile that
    fits the UB at the op file's shapes and not at the benchmark's is refused); returns a summary."""
    from ascendcraft.binding import bind
    from ascendcraft.chips import load_chip
    from ascendcraft.dsl import check, parse_file
    from ascendcraft.plan import buffer_plan

    kernel = parse_file(example / "kernel.dsl")
    shapes = mkb_shapes(example / "op.py")
    binding, _ = bind(kernel, shapes)
    chip = load_chip("910B2")
    ck = check(kernel, binding, chip)
    plan = buffer_plan(kernel, SimpleNamespace(real=shapes), ck)
    assert plan.refused is None, plan.summary()
    peaks = ", ".join(f"{sp.upper()} {ck.peak[sp][0]:,} / {chip.capacity(sp):,}"
                      for sp in ("ub", "l1", "l0c") if ck.peak[sp][0] or sp == "ub")
    dims = ", ".join(f"{k}={v}" for k, v in binding.dims.items())
    return f"peak bytes {peaks} at {dims}"


@pytest.mark.parametrize("kernel", KERNELS, ids=_id)
def test_example_passes_check(kernel):
    from ascendcraft.checking import check_kernel

    r = check_kernel(kernel, kernel.parent / "op.py", trials=3)
    if not r.passed:
        print(r.summary())
    assert r.passed, r.summary()


@pytest.mark.parametrize("kernel", VARIANTS, ids=lambda k: f"{_id(k)}/{k.name}")
def test_an_examples_other_forms_pass_check_too(kernel):
    from ascendcraft.checking import check_kernel

    r = check_kernel(kernel, kernel.parent / "op.py", trials=2)
    assert r.passed, r.summary()


@pytest.mark.parametrize("kernel", MKB_KERNELS, ids=_id)
def test_example_fits_at_mkb_2026_shapes(kernel):
    print(mkb_check(kernel.parent))


# (example, [(text in kernel.dsl, replacement), ...]): plausible bugs the example's inputs
# must expose (see the notes on inputs in each op.py).
BROKEN = [
    ("activation/softmax",  # no rescaling of the running sum when the max grows
     [("s = s * exp(m - m_new) + sum(exp(t - m_new))", "s = s + sum(exp(t - m_new))")]),
    ("activation/log_softmax",
     [("s = s * exp(m - m_new) + sum(exp(t - m_new))", "s = s + sum(exp(t - m_new))")]),
    ("normalization/layer_norm",  # variance as E[x^2] - mean^2 (no shift)
     [("k = load(x[b, 0, 0, 0])", "k = 0.0"), ("mu = load(x[b, 0, 0, 0]) + d", "mu = d")]),
    ("normalization/layer_norm",  # weight ignored
     [("t * wt + load(", "t + load(")]),
    ("math/cumprod",  # no carry between tiles
     [("cumprod(t) * carry", "cumprod(t)")]),
    ("math/cumsum_reverse",  # first tile of the row never visited
     [("range(LAST, -1, -T)", "range(LAST, 0, -T)")]),
    ("optimizer/adam",  # first moment ignored
     [("load(m[r:r + RB, c:c + TW]) * beta1", "0.0 * beta1")]),
    ("pooling/max_pooling_2d",  # zero padding instead of -inf
     [("pad=-inf", "pad=0.0")]),
    ("index/argmax_over_a_dimension",  # a later chunk's maximum wins ties instead of the first
     [("better = (cv > bv)", "better = (cv >= bv)")]),
    ("index/argmax_over_a_dimension",  # a chunk's rows counted from 0, not from the chunk's first row
     [("argmax(u, axis=0, dtype=i32) + p", "argmax(u, axis=0, dtype=i32)")]),
    ("index/index_add",  # x dropped (MKB's zero x would hide this)
     [("store(y[r, j:j + T], load(x[r, j:j + T]))", "store(y[r, j:j + T], 0.0)")]),
    ("index/scatter_add",  # repeated indices overwrite instead of adding
     [("row = scatter_add(row,", "row = scatter(row,")]),
    ("index/masked_fill",  # mask inverted
     [("where(load(mask[b, r, j:j + T]), -inf, load(x[b, r, j:j + T]))",
       "where(load(mask[b, r, j:j + T]), load(x[b, r, j:j + T]), -inf)")]),
    ("loss/cross_entropy_loss",  # target logit not subtracted
     [("acc = acc + (m + log(s) - picked)", "acc = acc + (m + log(s))")]),
    ("npukernelbench/layer_norm",  # a left-out bias read as 1, not 0 (only the groups without bias show it)
     [("bias: gm T[N] = 0.0", "bias: gm T[N] = 1.0")]),
    ("npukernelbench/mish",  # whole tiles only: the groups smaller than a tile are never written
     [("parallel(cdiv(S, TS))", "parallel(S // TS)")]),
    ("npukernelbench/gather",  # every row picks with the first row's indices (dim the last axis)
     [("load(ir[a, k:k + TK])", "load(ir[0, k:k + TK])")]),
    ("npukernelbench/gather",  # a later chunk of D replaces every pick (only the groups with D > TD show it)
     [("got = where(rel >= 0, part, got)", "got = part")]),
]


@pytest.mark.parametrize("name, edits", BROKEN, ids=[f"{b[0]}:{i}" for i, b in enumerate(BROKEN)])
def test_broken_variant_fails(name, edits):
    from ascendcraft.checking import check_kernel

    source = (EXAMPLES / name / "kernel.dsl").read_text()
    for old, new in edits:
        assert old in source, f"{name}: {old!r} not in kernel.dsl"
        source = source.replace(old, new)
    r = check_kernel(source, EXAMPLES / name / "op.py", trials=1)
    assert not r.passed, f"a broken {name} kernel passed:\n{r.summary()}"


def test_example_set_covers_the_categories():
    assert len(KERNELS) >= 18, [_id(k) for k in KERNELS]
    for k in KERNELS:
        assert (k.parent / "op.py").is_file(), f"{_id(k)} has no op.py"
    per = Counter(k.parent.parent.name for k in KERNELS)
    for cat in CATEGORIES:
        assert per[cat] >= 2, f"category {cat}: {per[cat]} example(s), need 2"
    assert (EXAMPLES / "matmul" / "matmul" / "kernel.dsl").is_file()
    assert per["fuse"] >= 1
    assert per["npukernelbench"] >= 12       # group tasks: one kernel for every dtype, rank and empty tensor
    readme = (EXAMPLES / "README.md").read_text()
    for k in KERNELS:
        assert f"`{_id(k)}`" in readme, f"examples/README.md does not list {_id(k)}"
