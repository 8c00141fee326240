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

Kept as they are: the DSL's keywords only (a user identifier can never be one; the emitter reads
``CORES``, ``inf``, ``True`` and the dtypes by name). The names the passes invent are DSL names
like any other (fresh with respect to every name of the kernel: ``lowering_passes.base.Names``)
and are mangled the same way; the emitter finds bufferize's work buffers (``rwork``, ``xidx``,
...) by their role (``lowering_passes.bufferize.work_buffers``), not by a fixed spelling.

On the host side the spec keeps DSL names (tensors, attributes and dims, read by the project
and the Python bindings by name); only tiling *field* names are C++ names, the same in the
kernel, the tiling header and the tiling dict (``codegen.tiling.tiling_values`` keys). The
project (``codegen.project``) spells them for each language: :func:`cpp_name` for identifiers of
the generated host code, :func:`op_arg_name` for the op's description, :func:`py_name` for Python.
"""
from __future__ import annotations

import copy
import re
from dataclasses import fields, is_dataclass, replace

from ..dsl import ast as A
from ..dsl.parser import keywords
from ..dsl.types import TTile
from ..lowering_passes.base import Names

SUFFIX = "_u"

def kept(name: str) -> bool:
    """Names that are not identifiers of the program: the DSL's keywords."""
    return name in keywords()


#: C++ keywords, and the standard names a generated declaration would shadow (a parameter ``int64_t``).
CPP_RESERVED = frozenset({
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
    "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
    "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
    "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
    "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
    "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
    "half", "bfloat16_t", "NULL", "std", "at", "ge", "gert", "optiling", "ops", "AscendC",
    # what msopgen's aclnn API declares next to the operator's arguments
    "workspaceSize", "executor", "workspace", "stream",
})


def cpp_name(name: str) -> str:
    """The C++ spelling of DSL name ``name`` (``N`` -> ``N_u``, ``class`` -> ``class_u``)."""
    return name if kept(name) else name + SUFFIX


def dsl_name(cpp: str) -> str:
    """The inverse of :func:`cpp_name`."""
    return cpp[: -len(SUFFIX)] if cpp.endswith(SUFFIX) else cpp


# ------------------------------------------------------------------ the op's argument names
#
# Outside the kernel, an op argument (a tensor or an attribute) keeps its DSL name wherever the
# language can declare it, and is spelled cpp_name(name) where it cannot. A DSL name that already
# ends in the suffix is spelled cpp_name(name) too, so each mapping stays injective (``class`` ->
# ``class_u``, ``class_u`` -> ``class_u_u``). Identifiers of the generated host code (binding
# parameters and locals) are always cpp_name(name), or end in a suffix of their own (``x_uShape``).

def op_arg_name(name: str) -> str:
    """The argument's name in the CANN op's description (msopgen JSON, OpDef, the aclnn API that
    msopgen generates as C++ from it): ``class`` -> ``class_u``, ``x`` -> ``x``."""
    return cpp_name(name) if name in CPP_RESERVED or name.endswith(SUFFIX) else name


def py_name(name: str, reserved=()) -> str:
    """The argument's name in Python (the bindings' keyword arguments, ModelNew): ``class`` ->
    ``class_u``, ``float`` -> ``float``. ``reserved``: names the generated module uses itself."""
    import keyword
    bad = keyword.iskeyword(name) or name == "self" or name in reserved or name.endswith(SUFFIX)
    return cpp_name(name) if bad else name


# ------------------------------------------------------------------ the program

class _Renamer:
    """Rebuild a kernel with every identifier in C++ spelling, pairing each new expression
    node with the old one so the checker's types (keyed by ``id``) carry over."""

    def __init__(self):
        self.pairs: list[tuple[object, object]] = []   # (old expr, new expr)
        self.alias: dict[str, str] = {}   # in the statement being renamed: a name spelled as another

    def cpp(self, n: str) -> str:
        return cpp_name(self.alias.get(n, n))

    def name(self, n):
        return None if n is None else self.cpp(n)

    def type(self, t):
        if isinstance(t, A.TensorType):
            return replace(t, shape=tuple(d if isinstance(d, int) else cpp_name(d) for d in t.shape))
        return t

    def expr(self, e):
        if e is None:
            return None
        if isinstance(e, A.Name):
            new = replace(e, id=self.cpp(e.id))
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
            return replace(s, target=self.cpp(s.target), value=self.expr(s.value))
        if isinstance(s, A.Const):
            return replace(s, name=cpp_name(s.name), value=self.expr(s.value))
        if isinstance(s, (A.Scratch, A.Buffer)):
            return replace(s, name=cpp_name(s.name), type=self.type(s.type))
        if isinstance(s, A.View):
            return replace(s, name=cpp_name(s.name), base=cpp_name(s.base),
                           shape=tuple(d if isinstance(d, int) else cpp_name(d) for d in s.shape))
        if isinstance(s, A.Store):
            return replace(s, dst=self.expr(s.dst), value=self.expr(s.value))
        if isinstance(s, A.For):
            return replace(s, var=self.cpp(s.var), start=self.expr(s.start), stop=self.expr(s.stop),
                           step=self.expr(s.step), body=self.block(s.body))
        if isinstance(s, A.ParallelFor):
            return replace(s, vars=tuple(self.cpp(v) for v in s.vars),
                           extents=tuple(self.expr(x) for x in s.extents), body=self.block(s.body))
        if isinstance(s, A.Free):
            return replace(s, name=self.cpp(s.name))
        if isinstance(s, A.Pass):
            return s
        raise TypeError(f"names: no renaming for statement {type(s).__name__}")

    def block(self, stmts):
        return tuple(self.stmt(s) for s in stmts)

    def param(self, p: A.Param):
        return replace(p, name=cpp_name(p.name), type=self.type(p.type), default=self.expr(p.default))


def _assigned_kinds(stmts, types) -> tuple[set, set]:
    """The names ``stmts`` assign tile values to, and those they assign scalars to."""
    tiles, scalars = set(), set()
    for s in A.statements(stmts):
        if isinstance(s, A.Assign):
            (tiles if isinstance(types.get(id(s.value)), TTile) else scalars).add(s.target)
    return tiles, scalars


def mangle_kernel(kernel: A.Kernel, checked):
    """``kernel`` with every identifier in C++ spelling, and a copy of ``checked`` (its
    CheckedKernel) whose expression types are keyed by the new nodes. The kernel keeps its
    name and source (spans point into the same text)."""
    r = _Renamer()
    tiles, scalars = _assigned_kinds(kernel.body, checked.expr_types)
    both = tiles & scalars
    fresh = Names(kernel) if both else None
    body = []
    for s in kernel.body:
        # Process() declares each name once: a name that is a scalar in one phase and a tile in
        # another takes another spelling in the phases where it is a tile
        here, _ = _assigned_kinds([s], checked.expr_types)
        r.alias = {n: fresh.fresh(f"{n}_tile") for n in sorted(here & both)}
        body.append(r.stmt(s))
    r.alias = {}
    new = replace(kernel, inputs=tuple(r.param(p) for p in kernel.inputs),
                  outputs=tuple(r.param(p) for p in kernel.outputs), body=tuple(body),
                  star_dims=tuple(cpp_name(d) for d in kernel.star_dims),
                  star_counts=tuple((cpp_name(d), cpp_name(c) if isinstance(c, str) else c)
                                    for d, c in kernel.star_counts))
    new = replace(new, source=kernel.source)
    ck = copy.copy(checked)
    types = checked.expr_types
    ck.expr_types = {id(n): types[id(o)] for o, n in r.pairs if id(o) in types}
    ck.kernel = new
    ck._mangled_from = (kernel, r.pairs)    # keeps the old nodes alive: their ids stay unique
    if checked.symbols is not None:
        ck.symbols = checked.symbols.renamed(cpp_name)
    parameters = getattr(checked, "parameters", None)
    if parameters:
        ck.parameters = {cpp_name(n) for n in parameters}
    return new, ck


# ------------------------------------------------------------------ the spec and messages

def unmangle_spec(spec):
    """A spec printed from a mangled kernel, with DSL names where the host reads them: tensors,
    attributes, dims in shapes, the sources of tiling fields and scratch tensors. Tiling field names
    stay C++ names (the header's fields, the tiling dict's keys, the workspace and scratch size
    expressions' names)."""
    def dims(shape):
        return tuple(d if isinstance(d, int) else dsl_name(d) for d in shape)

    def tensor(t):
        return replace(t, name=dsl_name(t.name), shape=dims(t.shape), stars=dims(t.stars))

    inputs = tuple(tensor(t) for t in spec.inputs)
    outputs = tuple(tensor(t) for t in spec.outputs)
    attrs = tuple(replace(a, name=dsl_name(a.name)) for a in spec.attrs)
    tiling = tuple(replace(f, source=(f.source[0], dsl_name(f.source[1]), *f.source[2:])) for f in spec.tiling_fields)
    scratch = tuple((dsl_name(name), size, elem) for name, size, elem in spec.scratch)   # sizes: C++ field names
    counts = tuple((dsl_name(d), dsl_name(c) if isinstance(c, str) else c) for d, c in spec.star_counts)
    return replace(spec, inputs=inputs, outputs=outputs, attrs=attrs, tiling_fields=tiling, scratch=scratch,
                   star_counts=counts, extents=tuple((dsl_name(d), e) for d, e in spec.extents))


_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*" + re.escape(SUFFIX) + r"\b")


def unmangle_text(text: str | None) -> str | None:
    """A message about a mangled program in the writer's names (``t_u`` -> ``t``)."""
    return None if text is None else _WORD.sub(lambda m: dsl_name(m.group(0)), text)
