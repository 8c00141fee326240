"""One operator for every dtype of a generic kernel: its instances (one lowering per dtype signature,
``Lowered.instances``) combined into the msopgen project's operator.

CANN registers an operator's dtypes as columns of the OpDef's DataType lists (column i of every input
and output together is one combination) and picks the kernel by the tiling key TilingFunc sets
(``TILING_KEY_IS(k)`` in the kernel; asc-devkit docs, "Tiling模板编程"/"TILING_KEY_IS"). The combined
op_kernel holds each instance's emitted code in a namespace of its own, its entry as
``Run``, and one ``extern "C"`` entry that runs instance k where the tiling key is k; TilingFunc sets
the key from the inputs' dtypes and InferDataType gives the outputs' dtypes of that column
(codegen/project.py). Instances combine when they differ only in dtypes and kernel code: the same
tensors, attributes, tiling fields, workspace and core type (otherwise the project keeps the first
instance's dtypes, and says why).
"""
from __future__ import annotations

import re
from dataclasses import replace

from .spec import KernelSpec

_ENTRY = re.compile(r'^extern "C" __global__ __aicore__ void (\w+)\(', re.M)
_TASK_TYPE = re.compile(r"^\s*KERNEL_TASK_TYPE_DEFAULT\((\w+)\);\n", re.M)


def combine(main: KernelSpec, others: list[KernelSpec]) -> tuple[KernelSpec, str | None]:
    """(the operator serving ``main``'s dtypes and each of ``others``', or ``main`` alone and why not)."""
    if not others:
        return main, None
    for o in others:
        why = _differs(main, o)
        if why:
            return main, f"one operator per dtype: the {_dtypes(o)} instance differs from the {_dtypes(main)} one ({why})"
    specs = [main, *others]
    task_types = {m.group(1) for s in specs for m in _TASK_TYPE.finditer(s.kernel_source)}
    if len(task_types) > 1 or any(len(_ENTRY.findall(s.kernel_source)) != 1 for s in specs):
        return main, "one operator per dtype: the instances' kernels do not share one launch form"
    includes, bodies = [], []
    for k, s in enumerate(specs):
        text = s.kernel_source
        lines = [line for line in text.splitlines() if line.startswith("#")]
        includes += [line for line in lines if line not in includes]
        text = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
        text = _TASK_TYPE.sub("", text)
        text = _ENTRY.sub("__aicore__ inline void Run(", text)
        bodies.append(f"// the {_dtypes(s)} instance (tiling key {k})\nnamespace {_namespace(k)} {{\n{text.strip()}\n}}  "
                      f"// namespace {_namespace(k)}\n")
    params = _ENTRY.search(main.kernel_source)
    signature = main.kernel_source[params.start():main.kernel_source.index(")", params.end()) + 1]
    args = ", ".join(p.split()[-1] for p in signature[signature.index("(") + 1:-1].split(","))
    branches = "\n".join(f"    {'if' if k == 0 else 'else if'} (TILING_KEY_IS({k})) {{\n        {_namespace(k)}::Run({args});\n    }}"
                         for k in range(len(specs)))
    task = f"    KERNEL_TASK_TYPE_DEFAULT({task_types.pop()});\n" if task_types else ""
    source = ("\n".join(includes) + "\n\n" + "\n".join(bodies) + "\n" + signature + "\n{\n" + task + branches + "\n}\n")
    columns = lambda pick: tuple(tuple(pick(s)[i].dtype for s in specs) for i in range(len(pick(main))))  # noqa: E731
    ins, outs = columns(lambda s: s.inputs), columns(lambda s: s.outputs)
    return replace(main, kernel_source=source, instance_source=main.kernel_source,
                   inputs=tuple(replace(t, dtypes=d) for t, d in zip(main.inputs, ins)),
                   outputs=tuple(replace(t, dtypes=d) for t, d in zip(main.outputs, outs))), None


def _namespace(k: int) -> str:
    return f"ascendcraft_instance{k}"


def _dtypes(s: KernelSpec) -> str:
    return ", ".join(t.dtype for t in s.inputs + s.outputs)


def _differs(a: KernelSpec, b: KernelSpec) -> str | None:
    """What besides dtypes and kernel code differs between two instances, or None."""
    strip = lambda ts: [(t.name, t.shape, t.stars, t.is_parameter, t.default) for t in ts]  # noqa: E731
    for what, x, y in (("tensors", strip(a.inputs + a.outputs), strip(b.inputs + b.outputs)),
                       ("attributes", a.attrs, b.attrs), ("tiling fields", a.tiling_fields, b.tiling_fields),
                       ("workspace", a.workspace_bytes, b.workspace_bytes), ("core type", a.core_type, b.core_type),
                       ("op name", a.op_name, b.op_name), ("star counts", a.star_counts, b.star_counts),
                       ("computed extents", a.extents, b.extents)):
        if x != y:
            return what
    return None
