"""What every lowering pass shares: the pass interface, its context, and IR-building helpers."""
from __future__ import annotations

import re
import typing
from dataclasses import dataclass, field, fields, is_dataclass, replace

from ascendcraft.dsl import ast as A
from ascendcraft.dsl.ast import map_names  # noqa: F401  (the passes import it from here)
from ascendcraft.errors import DSLError


@dataclass
class PassContext:
    """What a pass may read: the checked input program at the op's real shapes, and the chip.

    ``checked.expr_types`` maps ``id(expr)`` of the *input* program's nodes to their static types.
    """

    checked: object          # ascendcraft.dsl.checker.CheckedKernel
    chip: object             # ascendcraft.chips.Chip
    assist: object = None    # optional LLM assist: Callable[[str], str] (prompt -> answer)
    notes: list = field(default_factory=list)   # what the pass decided, for the report
    fits: list = field(default_factory=list)    # fit.TileFit records: tile sizes and the UB (for check's plan)
    # source lines of tiles a loop loads or stores that pipeline found no room to give a queue (their
    # copies wait for the compute and the compute for them; for check's plan and fit)
    unqueued: list = field(default_factory=list)
    # the dims and attributes of the other shape sets the kernel will run at (verification, second):
    # buffers sized by dims must fit the UB at each of them, not only at the real shapes
    shape_envs: tuple = ()
    # the identifiers of the writer's kernel: a note names a loop by its variable only when the
    # writer chose it (:func:`loop_name`)
    source_names: frozenset = frozenset()

    def type_of(self, e):
        return self.checked.expr_types.get(id(e))

    @property
    def symbols(self):
        """The input program's names (GM tensors, dims, attributes, consts) valued at the op's real shapes."""
        return self.checked.symbols

    def envs(self) -> list[dict]:
        """Dims and attributes of every shape set the kernel runs at, the real shapes first."""
        real = self.checked.binding
        return [{**real.attrs, **real.dims}, *self.shape_envs]

    def tensor(self, name: str):
        """A GM tensor of the input program, parameter or scratch (``ascendcraft.dsl.symbols.TensorSymbol``)."""
        return self.checked.symbols.tensor(name)


@dataclass(frozen=True)
class LoweringPass:
    """A named program-to-program rewrite. Subclasses set ``name`` and implement ``run``.

    An error a pass raises speaks the writer's terms: a name the pass (or an earlier one) invented
    is shown as the writer's expression it holds (:func:`writer_terms`)."""

    name: str = "pass"
    establishes: tuple[str, ...] = ()

    def run(self, kernel: A.Kernel, ctx: PassContext) -> A.Kernel:
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        run = cls.__dict__.get("run")
        if run is None:
            return

        def located_run(self, kernel, ctx):
            try:
                return run(self, kernel, ctx)
            except DSLError as err:
                raise in_writer_terms(err, kernel) from None
        located_run.__doc__, located_run.__name__ = run.__doc__, run.__name__
        cls.run = located_run


def in_writer_terms(err, kernel):
    """``err`` with its message and hint in the writer's terms (:func:`writer_terms`); returns it."""
    message, hint = writer_terms(err.message, kernel), writer_terms(err.hint, kernel)
    if message != err.message and err.args and err.args[0] == err.message:
        err.args = (message, *err.args[1:])
    err.message, err.hint = message, hint
    return err


def rewrite_block(stmts, rewrite) -> tuple:
    """Apply ``rewrite(stmt) -> list of stmts`` to every statement outside loops, recursing into loops."""
    out = []
    for s in stmts:
        if isinstance(s, (A.For, A.ParallelFor)):
            out.append(replace(s, body=rewrite_block(s.body, rewrite)))
        else:
            out += rewrite(s)
    return tuple(out)


def is_phase_loop(s) -> bool:
    """A top-level ``for`` whose body is parallel loops: its phases run once per iteration."""
    return isinstance(s, A.For) and bool(s.body) and all(isinstance(b, A.ParallelFor) for b in s.body)


class Names:
    """The one source of fresh names for the passes: a name no identifier of the kernel uses.

    Seeded with every identifier the kernel mentions, wherever it appears (parameters, dims in
    types, constants, scratch tensors, buffers, variables, loop variables, ``out=`` buffers,
    ``free`` operands), so a name a pass invents can never be one the writer chose (a variable
    ``_t0``, ``core0``, ``_pf0`` or ``rwork`` only pushes the pass to the next free name)."""

    def __init__(self, kernel: A.Kernel):
        self.taken: set[str] = identifiers(kernel)
        self.counts: dict[str, int] = {}

    def fresh(self, stem: str, *, bare: bool = False) -> str:
        """``<stem><k>`` for the first k that is free; with ``bare``, ``stem`` itself when it is free."""
        if bare and stem not in self.taken:
            self.taken.add(stem)
            return stem
        while True:
            k = self.counts.get(stem, 0)
            self.counts[stem] = k + 1
            name = f"{stem}{k}"
            if name not in self.taken:
                self.taken.add(name)
                return name


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def loop_name(loop, ctx: PassContext) -> str:
    """A loop as a pass's note names it: by its source line, and by its variable where the kernel's
    writer chose it (a pass's fresh names, such as the ``_khkw0`` of two collapsed loops or a
    partition's ``f0``, mean nothing to the reader)."""
    var = getattr(loop, "var", None)
    where = f"the loop at line {loop.span.line}" if getattr(loop, "span", None) is not None else "a loop"
    return where + (f" over {var}" if var in ctx.source_names else "")


def identifiers(kernel: A.Kernel) -> set[str]:
    """Every identifier-shaped string in the kernel's IR: each string field of each node, and each
    string in a tuple field (a ParallelFor's variables, a type's dims). Generic on purpose: a name
    in a field added later is still seen (more taken names only make fresh names longer)."""
    return set(_KERNEL_IDENTIFIERS.get(kernel, lambda k: frozenset(s for s in _strings(k) if _IDENT.fullmatch(s))))


_KERNEL_IDENTIFIERS = A.ByNode(4)   # each pass's Names: most passes leave the kernel as it was


_STATEMENTS = typing.get_args(A.Stmt)
# A statement's strings: each pass makes fresh names, and most statements are the level before's.
_STATEMENT_STRINGS = A.ByNode(200_000)


def _strings(node) -> frozenset:
    strings: set[str] = set()
    for f in A.child_fields(type(node)):
        v = getattr(node, f)
        for item in v if isinstance(v, tuple) else (v,):
            if isinstance(item, str):
                strings.add(item)
            elif isinstance(item, _STATEMENTS):
                strings |= _STATEMENT_STRINGS.get(item, _strings)
            elif hasattr(item, "__dataclass_fields__"):
                strings |= _strings(item)
    return frozenset(strings)


def name(n: str) -> A.Name:
    return A.Name(n)


def dim_expr(d) -> A.Expr:
    """A tensor type's extent (a dim name or an int) as an expression."""
    return A.Name(d) if isinstance(d, str) else A.Int(d)


def binary(op: str, a, b) -> A.Binary:
    return A.Binary(op, a, b)


def call(func: str, *args, **kwargs) -> A.Call:
    return A.Call(func, tuple(args), tuple(A.Keyword(k, v) for k, v in kwargs.items()))


def lit(v):
    if isinstance(v, bool):
        return A.Name("True" if v else "False")
    return A.Int(v) if isinstance(v, int) else A.Float(v)


def int_literal(e) -> int | None:
    """The value of an integer literal, negative ones included (``-1`` parses as a negation), else None."""
    if isinstance(e, A.Int):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.Int):
        return -e.operand.value
    return None


def rename_names(node, mapping: dict):
    """``node`` with every use of a name in ``mapping`` renamed (``Name`` nodes and ``free``
    operands; assignment targets are definitions, not uses). Renamed nodes keep their origin; nodes
    that do not change are kept, so their types (keyed by ``id``) stay valid."""
    if isinstance(node, tuple):
        items = tuple(rename_names(x, mapping) for x in node)
        return node if all(a is b for a, b in zip(items, node)) else items
    if not is_dataclass(node) or isinstance(node, A.TensorType):
        return node
    if isinstance(node, A.Name):
        return replace(node, id=mapping[node.id]) if node.id in mapping else node
    if isinstance(node, A.Free):
        return replace(node, name=mapping[node.name]) if node.name in mapping else node
    changes = {}
    for f in fields(node):
        if f.name in ("span", "source"):
            continue
        v = getattr(node, f.name)
        if isinstance(v, tuple) or is_dataclass(v):
            new = rename_names(v, mapping)
            if new is not v:
                changes[f.name] = new
    return replace(node, **changes) if changes else node


def span_text(span, source) -> str | None:
    """The writer's text at ``span`` in ``source`` (one line, or the lines it covers joined)."""
    if span is None or source is None:
        return None
    lines = source.text.splitlines()
    if not 0 < span.line <= len(lines):
        return None
    if span.end_line == span.line:
        text = lines[span.line - 1][span.column - 1:span.end_column - 1]
    else:
        parts = [lines[span.line - 1][span.column - 1:]]
        parts += lines[span.line:span.end_line - 1]
        if span.end_line <= len(lines):
            parts.append(lines[span.end_line - 1][:span.end_column - 1])
        text = " ".join(p.strip() for p in parts)
    return text.strip() or None


def writer_terms(text: str | None, kernel: A.Kernel) -> str | None:
    """``text`` (an error message or hint about a program a pass made) with every name a pass
    invented (``_t0``, ``_a3``, ``_pf0``: not in the writer's source) replaced by the writer's
    expression it holds: the source text of its definition's origin (``passes.with_origins``).
    Names the writer wrote are kept; so is a pass-made name whose origin is unknown."""
    source = getattr(kernel, "source", None)
    if not text or source is None:
        return text
    written = set(_IDENT.findall(source.text))
    defs: dict[str, object] = {}
    for n in A.walk(kernel):
        if isinstance(n, A.Assign) and n.target not in defs:
            defs[n.target] = n
    memo: dict[str, str | None] = {}

    def origin_text(name: str) -> str | None:
        if name not in memo:
            d = defs.get(name)
            memo[name] = None
            if d is not None:
                t = span_text(getattr(d.value, "span", None) or d.span, source)
                # a statement's own origin (`x = f(...)`) names its value by the right-hand side
                m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*(.+)$", t or "")
                memo[name] = m.group(2) if m else t
        return memo[name]

    def sub(quote):
        def one(m):
            word = m.group(0)
            if word in written or word not in defs:
                return word
            origin = origin_text(word)
            return (f"`{origin}`" if quote else origin) if origin else word
        return one
    # inside `code` a name becomes the expression itself, elsewhere the expression in backticks
    parts = text.split("`")
    return "`".join(_IDENT.sub(sub(i % 2 == 0), p) for i, p in enumerate(parts))
