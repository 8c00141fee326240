"""DSL names in the generated C++: one deterministic mapping, applied in one place.

Every identifier of a lowered kernel (tensors, dims, attributes, constants, scratch tensors,
buffers, tiles, scalars, loop variables, whether the writer or a pass chose it) becomes
``<name>_u`` in C++ (:func:`cpp_name`). :func:`mangle_kernel` applies it to the whole program
where it enters the emitter (``codegen.kernel.emit_kernel``), so the emitter prints names as
they come and no user name can be spelled like a C++ keyword or type (``class``, ``half``,
``float``), a macro, an AscendC name (``AscendC``, ``pipe``, ``GetBlockIdx``), a template
parameter of the tiling macros (a dim ``V``), or an emitter temporary (``off_``, ``r_``, ``c_``).

Why the mapping cannot collide:

* it is injective (a fixed suffix), and its results all end in ``_u``;
* the emitter's own names (``off_``, ``q_``, ``pipe``, ``scalarBuf``, ``tilingData``, ``mm0``,
  ``workspace``, ``tiling``, the ``Ac*`` helpers) never end in ``_u``;
* the names it derives from a mangled name (``<n>Gm``, ``<n>Buf``, ``<n>_rows``, ``<n>_cols``,
  ``<n>_pitch``) end in ``Gm``, ``Buf``, ``_rows``, ``_cols`` or ``_pitch``, never in ``_u``, and
  each suffix keeps them apart from each other.

Kept as they are: the DSL's keywords (a user identifier can never be one; the emitter reads
``CORES``, ``inf``, ``True`` and the dtypes by name) and the work buffers bufferize creates,
which the emitter names directly (:data:`EMITTER_BUFFERS`).

On the host side the spec keeps DSL names (tensors, attributes and dims, read by the project
and the Python bindings by name); only tiling *field* names are C++ names, the same in the
kernel, the tiling header and the tiling dict (``codegen.tiling.tiling_values`` keys).
"""
from __future__ import annotations

import copy
import re
from dataclasses import fields, is_dataclass, replace

from ..dsl import ast as A
from ..dsl.parser import keywords

SUFFIX = "_u"

#: UB work areas bufferize declares under fixed names, which the emitter's code uses directly.
EMITTER_BUFFERS = frozenset({"rwork", "swork", "sidx", "wwork", "widx", "xwork", "xidx"})


def kept(name: str) -> bool:
    """Names that are not user identifiers: keywords and the emitter's work buffers."""
    return name in keywords() or name in EMITTER_BUFFERS


def cpp_name(name: str) -> str:
    """The C++ spelling of DSL name ``name`` (``N`` -> ``N_u``, ``class`` -> ``class_u``)."""
    return name if kept(name) else name + SUFFIX


def dsl_name(cpp: str) -> str:
    """The inverse of :func:`cpp_name`."""
    return cpp[: -len(SUFFIX)] if cpp.endswith(SUFFIX) else cpp


# ------------------------------------------------------------------ the program

class _Renamer:
    """Rebuild a kernel with every identifier in C++ spelling, pairing each new expression
    node with the old one so the checker's types (keyed by ``id``) carry over."""

    def __init__(self):
        self.pairs: list[tuple[object, object]] = []   # (old expr, new expr)

    def name(self, n):
        return None if n is None else cpp_name(n)

    def type(self, t):
        if isinstance(t, A.TensorType):
            return replace(t, shape=tuple(d if isinstance(d, int) else cpp_name(d) for d in t.shape))
        return t

    def expr(self, e):
        if e is None:
            return None
        if isinstance(e, A.Name):
            new = replace(e, id=cpp_name(e.id))
        elif isinstance(e, A.Call):
            new = replace(e, args=tuple(self.expr(a) for a in e.args),
                          kwargs=tuple(replace(k, value=self.kwarg_value(k)) for k in e.kwargs))
        elif isinstance(e, A.Load):
            new = replace(e, src=self.expr(e.src), pad=self.expr(e.pad), out=self.name(e.out))
        elif isinstance(e, (A.Int, A.Float, A.Str)):
            new = e
        else:   # Unary, Binary, Index, Slice, Tuple: rebuild every expression field
            changes = {}
            for f in fields(e):
                if f.name == "span":
                    continue
                v = getattr(e, f.name)
                if isinstance(v, tuple):
                    changes[f.name] = tuple(self.expr(x) if is_dataclass(x) else x for x in v)
                elif is_dataclass(v):
                    changes[f.name] = self.expr(v)
            new = replace(e, **changes)
        self.pairs.append((e, new))
        return new

    def kwarg_value(self, k: A.Keyword):
        if k.name == "space":      # space=l1 / space=l0c names a memory space, not a value
            self.pairs.append((k.value, k.value))
            return k.value
        return self.expr(k.value)

    def stmt(self, s):
        if isinstance(s, A.Assign):
            return replace(s, target=cpp_name(s.target), value=self.expr(s.value))
        if isinstance(s, A.Const):
            return replace(s, name=cpp_name(s.name), value=self.expr(s.value))
        if isinstance(s, (A.Scratch, A.Buffer)):
            return replace(s, name=cpp_name(s.name), type=self.type(s.type))
        if isinstance(s, A.Store):
            return replace(s, dst=self.expr(s.dst), value=self.expr(s.value))
        if isinstance(s, A.For):
            return replace(s, var=cpp_name(s.var), start=self.expr(s.start), stop=self.expr(s.stop),
                           step=self.expr(s.step), body=self.block(s.body))
        if isinstance(s, A.ParallelFor):
            return replace(s, vars=tuple(cpp_name(v) for v in s.vars),
                           extents=tuple(self.expr(x) for x in s.extents), body=self.block(s.body))
        if isinstance(s, A.Free):
            return replace(s, name=cpp_name(s.name))
        if isinstance(s, A.Pass):
            return s
        raise TypeError(f"names: no renaming for statement {type(s).__name__}")

    def block(self, stmts):
        return tuple(self.stmt(s) for s in stmts)

    def param(self, p: A.Param):
        return replace(p, name=cpp_name(p.name), type=self.type(p.type), default=self.expr(p.default))


def mangle_kernel(kernel: A.Kernel, checked):
    """``kernel`` with every identifier in C++ spelling, and a copy of ``checked`` (its
    CheckedKernel) whose expression types are keyed by the new nodes. The kernel keeps its
    name and source (spans point into the same text)."""
    r = _Renamer()
    new = replace(kernel, inputs=tuple(r.param(p) for p in kernel.inputs),
                  outputs=tuple(r.param(p) for p in kernel.outputs), body=r.block(kernel.body))
    new = A.Kernel(new.name, new.inputs, new.outputs, new.body, new.span, kernel.source)
    ck = copy.copy(checked)
    types = checked.expr_types
    ck.expr_types = {id(n): types[id(o)] for o, n in r.pairs if id(o) in types}
    ck.kernel = new
    ck._mangled_from = (kernel, r.pairs)    # keeps the old nodes alive: their ids stay unique
    parameters = getattr(checked, "parameters", None)
    if parameters:
        ck.parameters = {cpp_name(n) for n in parameters}
    return new, ck


# ------------------------------------------------------------------ the spec and messages

def unmangle_spec(spec):
    """A spec printed from a mangled kernel, with DSL names where the host reads them: tensors,
    attributes, dims in shapes and the sources of tiling fields. Tiling field names stay C++
    names (the header's fields, the tiling dict's keys, the workspace expression's names)."""
    def dims(shape):
        return tuple(d if isinstance(d, int) else dsl_name(d) for d in shape)

    inputs = tuple(replace(t, name=dsl_name(t.name), shape=dims(t.shape)) for t in spec.inputs)
    outputs = tuple(replace(t, name=dsl_name(t.name), shape=dims(t.shape)) for t in spec.outputs)
    attrs = tuple(replace(a, name=dsl_name(a.name)) for a in spec.attrs)
    tiling = tuple(replace(f, source=(f.source[0], dsl_name(f.source[1]), *f.source[2:])) for f in spec.tiling_fields)
    return replace(spec, inputs=inputs, outputs=outputs, attrs=attrs, tiling_fields=tiling)


_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*" + re.escape(SUFFIX) + r"\b")


def unmangle_text(text: str | None) -> str | None:
    """A message about a mangled program in the writer's names (``t_u`` -> ``t``)."""
    return None if text is None else _WORD.sub(lambda m: dsl_name(m.group(0)), text)
