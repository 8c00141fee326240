"""Parse tile DSL text into the IR (ascendcraft.dsl.ast)."""
from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from lark import Tree, Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.indenter import DedentError, Indenter

from ascendcraft.dsl_grammar import grammar_text

from ..errors import DSLError, SourceFile, Span
from . import ast as A
from .generics import validate as validate_generics
from .star_groups import validate as validate_stars


class TileIndenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4


@lru_cache(maxsize=None)
def _parser() -> Lark:
    # The basic lexer (not lark's contextual one) makes every keyword reserved in every position:
    # a contextual lexer would read `in` or `for` as a NAME wherever the keyword cannot occur.
    return Lark(grammar_text(), parser="lalr", lexer="basic", postlex=TileIndenter(), propagate_positions=True,
                maybe_placeholders=True, cache=True)


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=None)
def _keyword_terminals() -> dict[str, str]:
    """Terminal name -> keyword, for every quoted word of the grammar (see ascendcraft/dsl_grammar/tile.lark)."""
    return {t.name: t.pattern.value for t in _parser().terminals
            if t.pattern.type == "str" and _NAME_RE.fullmatch(t.pattern.value)}


def keywords() -> frozenset[str]:
    """The keywords of the tile DSL: exactly the words the grammar reserves (docs/dsl.md lists them)."""
    return frozenset(_keyword_terminals().values())


def _span(meta) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(meta.line, meta.column, meta.end_line, meta.end_column)


def _tok_span(tok: Token) -> Span:
    return Span(tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + len(tok))


_STATEMENT_CALLS = {"store": False, "atomic_add": True}


class _Star(str):
    """A ``*B`` or ``*A(dim)`` dim while the kernel's parameters are built (``count``: the attribute
    name or number in parentheses, None without); only a kernel parameter's shape may hold one."""

    count: str | int | None = None
    span: Span | None = None


def _no_star(ty: A.TensorType, what: str) -> None:
    star = next((d for d in ty.shape if isinstance(d, _Star)), None)
    if star is not None:
        raise DSLError(f"{what} has a fixed rank: *{star} belongs to a kernel parameter's shape", ty.span,
                       kind="syntax error", hint=f"write {star}: the dim a parameter's *{star} binds")


def _star_signature(params: list[A.Param]) -> tuple[list[A.Param], tuple[str, ...], tuple]:
    """The parameters with each ``*B`` written as its name, the star dims in order of appearance and
    the counts given in parentheses (one per star dim at most; the same count may be repeated)."""
    stars: list[str] = []
    counts: dict[str, tuple] = {}
    out = []
    for p in params:
        t = p.type
        if isinstance(t, A.TensorType) and any(isinstance(d, _Star) for d in t.shape):
            for d in t.shape:
                if not isinstance(d, _Star):
                    continue
                if str(d) not in stars:
                    stars.append(str(d))
                if d.count is None:
                    continue
                if str(d) in counts and counts[str(d)][0] != d.count:
                    raise DSLError(f"*{d} covers {counts[str(d)][0]} axes in {counts[str(d)][1]} but {d.count} in "
                                   f"{p.name}", t.span, kind="syntax error",
                                   hint=f"give *{d} its count once (*{d}({counts[str(d)][0]})); other tensors "
                                        f"write *{d} and cover the same axes")
                counts.setdefault(str(d), (d.count, p.name))
            t = replace(t, shape=tuple(str(d) if isinstance(d, _Star) else d for d in t.shape))
            p = replace(p, type=t)
        out.append(p)
    return out, tuple(stars), tuple((name, count) for name, (count, _) in counts.items())


@v_args(inline=True, meta=True)
class _ToIR(Transformer):
    # ---- kernel and types
    def kernel(self, m, name, type_params, inputs, outputs, body):
        inputs, outputs = tuple(inputs or ()), tuple(outputs)
        params, stars, counts = _star_signature(list(inputs + outputs))
        kernel = A.Kernel(str(name), tuple(params[:len(inputs)]), tuple(params[len(inputs):]), body, _span(m),
                          type_params=tuple(type_params or ()), star_dims=stars, star_counts=counts)
        validate_generics(kernel)
        validate_stars(kernel)
        return kernel

    @v_args(inline=False, meta=False)
    def type_params(self, items):
        return tuple(items)

    def type_param(self, m, name, *choices):
        return A.TypeParam(str(name), tuple(str(c) for c in choices), _span(m))

    @v_args(inline=False, meta=False)
    def params(self, items):
        return tuple(items)

    def param(self, m, name, ty, default):
        return A.Param(str(name), ty, default, _span(m))

    def spaced_tensor_type(self, m, space, dtype, shape):
        return A.TensorType(str(dtype), shape, str(space), _span(m))

    def tensor_type(self, m, dtype, shape):
        return A.TensorType(str(dtype), shape, "gm", _span(m))

    def scalar_type(self, m, dtype):
        return A.ScalarType(str(dtype), _span(m))

    @v_args(inline=False, meta=False)
    def shape(self, dims):
        return tuple(d for d in dims if d is not None)

    def dim_name(self, m, tok):
        return str(tok)

    def star_dim(self, m, tok, count):
        star = _Star(str(tok))
        star.count, star.span = count, _span(m)
        return star

    def neg_int(self, m, tok):
        return -int(tok)

    # keywords whose text the IR keeps: dtypes, True/False/inf/nan/CORES, and kernel= (window ops)
    def dtype(self, m, tok):
        return str(tok)

    constant = cores = kernel_word = dtype

    def dim_int(self, m, tok):
        return int(tok)

    # ---- statements
    @v_args(inline=False, meta=False)
    def suite(self, stmts):
        return tuple(stmts)

    def assign(self, m, name, value):
        if isinstance(value, A.Call) and value.func == "view":
            return _view(str(name), value, _span(m))
        if isinstance(value, A.Call) and value.func == "permute":
            return _permute(str(name), value, _span(m))
        return A.Assign(str(name), value, _span(m))

    def const_stmt(self, m, name, value):
        return A.Const(str(name), value, _span(m))

    def scratch_stmt(self, m, name, ty):
        if not isinstance(ty, A.TensorType):
            raise DSLError("a scratch buffer needs a tensor type such as f32[N]", ty.span, kind="syntax error")
        _no_star(ty, "a scratch tensor")
        return A.Scratch(str(name), ty, _span(m))

    def buffer_stmt(self, m, name, ty, depth):
        if not isinstance(ty, A.TensorType) or ty.space not in A.BUFFER_POSITIONS:
            raise DSLError("a buffer needs a position and a tensor type, such as vecin f32[8192]",
                           getattr(ty, "span", None) or _span(m), kind="syntax error",
                           expected=A.BUFFER_POSITIONS)
        _no_star(ty, "a buffer")
        return A.Buffer(str(name), ty, int(depth) if depth is not None else 1, _span(m))

    def pass_stmt(self, m):
        return A.Pass(_span(m))

    def expr_stmt(self, m, expr):
        if isinstance(expr, A.Call) and expr.func in _STATEMENT_CALLS:
            if len(expr.args) != 2 or expr.kwargs:
                raise DSLError(f"{expr.func} takes exactly two arguments: {expr.func}(dst[...], value)",
                               expr.span, kind="syntax error")
            return A.Store(expr.args[0], expr.args[1], _STATEMENT_CALLS[expr.func], _span(m))
        if isinstance(expr, A.Call) and expr.func == "free":
            if len(expr.args) != 1 or not isinstance(expr.args[0], A.Name) or expr.kwargs:
                raise DSLError("free takes one tile name: free(t)", expr.span, kind="syntax error")
            return A.Free(expr.args[0].id, _span(m))
        raise DSLError("this expression is computed and then thrown away", _span(m), kind="syntax error",
                       hint="assign it (name = expr) or write it to GM with store(dst[...], value)")

    @v_args(inline=False, meta=False)
    def loop_vars(self, toks):
        return tuple((str(t), t) for t in toks)

    def for_stmt(self, m, loop_vars, it, body):
        names = tuple(n for n, _ in loop_vars)
        if not isinstance(it, A.Call) or it.func not in ("range", "parallel") or it.kwargs:
            raise DSLError("a for loop iterates over range(...) or parallel(...)",
                           getattr(it, "span", None) or _span(m), kind="syntax error")
        if it.func == "parallel":
            if len(it.args) != len(names) or not names:
                raise DSLError(f"parallel(...) needs one extent per loop variable: {len(names)} variable(s), "
                               f"{len(it.args)} extent(s)", it.span, kind="syntax error")
            return A.ParallelFor(names, tuple(it.args), body, _span(m))
        if len(names) != 1:
            raise DSLError("range(...) loops take exactly one loop variable", _tok_span(loop_vars[1][1]),
                           kind="syntax error")
        args = it.args
        if not 1 <= len(args) <= 3:
            raise DSLError("range takes 1 to 3 arguments: range(stop), range(start, stop), range(start, stop, step)",
                           it.span, kind="syntax error")
        if len(args) == 1:
            start, stop, step = A.Int(0), args[0], A.Int(1)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], A.Int(1)
        else:
            start, stop, step = args
        return A.For(names[0], start, stop, step, body, _span(m))

    # ---- expressions
    def compare(self, m, lhs, op, rhs):
        return A.Binary(str(op), lhs, rhs, _span(m))

    def _bin(op):  # noqa: N805 - helper building one method per operator
        def method(self, m, lhs, rhs):
            return A.Binary(op, lhs, rhs, _span(m))
        return method

    or_, and_, add, sub = _bin("|"), _bin("&"), _bin("+"), _bin("-")
    mul, div, floordiv, mod, pow = _bin("*"), _bin("/"), _bin("//"), _bin("%"), _bin("**")
    del _bin

    def neg(self, m, operand):
        # Fold the sign into numeric literals so that `axis=-1` is the integer -1.
        if isinstance(operand, A.Int) and operand.value >= 0:
            return A.Int(-operand.value, _span(m))
        if isinstance(operand, A.Float) and not str(operand.value).startswith("-"):
            return A.Float(-operand.value, _span(m))
        return A.Unary("-", operand, _span(m))

    def invert(self, m, operand):
        return A.Unary("~", operand, _span(m))

    def index(self, m, base, *subs):
        return A.Index(base, tuple(subs), _span(m))

    def slice(self, m, start, stop):
        return A.Slice(start, stop, _span(m))

    def stepped_slice(self, m, start, stop, step):
        return A.Slice(start, stop, _span(m), step)

    def name(self, m, tok):
        return A.Name(str(tok), _span(m))

    def int(self, m, tok):
        return A.Int(int(tok), _span(m))

    def float(self, m, tok):
        return A.Float(float(tok), _span(m))

    def string(self, m, tok):
        return A.Str(str(tok)[1:-1], _span(m))

    def tuple(self, m, *items):
        return A.Tuple(tuple(i for i in items if i is not None), _span(m))

    def kwarg(self, m, name, value):
        return A.Keyword(str(name), value, _span(m))

    def call(self, m, func, *args):
        args = [a for a in args if a is not None]
        positional, keywords = [], []
        for a in args:
            if isinstance(a, A.Keyword):
                if any(k.name == a.name for k in keywords):
                    raise DSLError(f"keyword argument {a.name!r} given twice", a.span, kind="syntax error")
                keywords.append(a)
            elif keywords:
                raise DSLError("positional argument after a keyword argument", a.span, kind="syntax error")
            else:
                positional.append(a)
        if str(func) == "load":
            return self._load(m, positional, keywords)
        return A.Call(str(func), tuple(positional), tuple(keywords), _span(m))

    def _load(self, m, positional, keywords):
        if len(positional) != 1:
            raise DSLError("load takes one GM region: load(x[...]), with optional pad=value and space=l1",
                           _span(m), kind="syntax error")
        pad, space, out = None, "ub", None
        for k in keywords:
            if k.name == "out" and isinstance(k.value, A.Name):
                out = k.value.id
            elif k.name == "pad":
                pad = k.value
            elif k.name == "space" and isinstance(k.value, A.Name) and k.value.id in ("ub", "l1"):
                space = k.value.id
            elif k.name == "space":
                raise DSLError("load(..., space=...) must be ub or l1", k.value.span, kind="syntax error")
            else:
                raise DSLError(f"load has no keyword argument {k.name!r}", k.span, kind="syntax error",
                               expected=("pad", "space"))
        return A.Load(positional[0], pad, space, out, _span(m))

    def start(self, m, *items):
        return items[-1]

    def __default__(self, data, children, meta):
        raise NotImplementedError(f"parser: no IR for grammar rule {data!r}")


_TOKEN_NAMES = {
    "_NL": "end of line", "_INDENT": "indented block", "_DEDENT": "end of block", "NAME": "name",
    "INT": "integer", "FLOAT": "number", "STRING": "string", "CMP_OP": "comparison",
}
_OPEN, _CLOSE = "([", ")]"


_DTYPE_WORDS = frozenset(A.DTYPES)


def _describe(token_type: str, names_expected: bool = False) -> str:
    if token_type in _TOKEN_NAMES:
        return _TOKEN_NAMES[token_type]
    word = _keyword_terminals().get(token_type)
    if word is not None and word not in ("kernel", "for", "in", "const", "scratch", "buffer", "pass"):
        # dtypes and True/False/inf/nan/CORES are names in expressions: "name" covers them
        return "name" if names_expected else "dtype" if word in _DTYPE_WORDS else repr(word)
    for term in _parser().terminals:
        if term.name == token_type:
            return repr(term.pattern.value) if term.pattern.type == "str" else token_type.lower()
    return token_type.lower()


def _keyword_hint(word: str) -> str:
    return (f"rename it (e.g. {word}_); the keywords are {' '.join(sorted(keywords(), key=str.lower))}; "
            "op names such as neg, sum or Max are not keywords and may name variables")


def _unclosed_bracket(text: str, upto_line: int) -> Span | None:
    """The last bracket still open at the end of line ``upto_line`` (ignoring comments and strings)."""
    stack: list[tuple[int, int]] = []
    for n, line in enumerate(text.splitlines()[:upto_line], start=1):
        line = re.sub(r"#.*", "", re.sub(r"\"[^\"]*\"|'[^']*'", "", line))
        for c, ch in enumerate(line, start=1):
            if ch in _OPEN:
                stack.append((n, c))
            elif ch in _CLOSE and stack:
                stack.pop()
    return Span(stack[-1][0], stack[-1][1], stack[-1][0], stack[-1][1] + 1) if stack else None


def _syntax_error(err: UnexpectedInput, source: SourceFile) -> DSLError:
    line, col = max(err.line, 1), max(err.column, 1)
    hint = None
    if isinstance(err, UnexpectedToken):
        tok = err.token
        # A bracket left open on an earlier line swallows the newlines after it, so the parser only
        # notices later: report the bracket instead.
        at_line_end = tok.type in ("_INDENT", "_DEDENT", "$END", "_NL")
        open_at = _unclosed_bracket(source.text, line if tok.type != "$END" else 10**9)
        if open_at is not None and (at_line_end or open_at.line < line):
            ch = source.line(open_at.line)[open_at.column - 1]
            return DSLError(f"{ch!r} was never closed", open_at, kind="syntax error", source=source)
        if tok.type == "$END":
            what, line, col = "unexpected end of file", max(len(source.text.splitlines()), 1), 1
        elif tok.type in ("_INDENT", "_DEDENT"):
            what = "unexpected indentation"
            # The token borrows the newline's position; the indented line starts where that newline ends.
            if tok.end_line and tok.end_column:
                line, col = tok.end_line, tok.end_column
        elif tok.type == "_NL":
            what = "unexpected end of line"
        elif tok.type in _keyword_terminals():
            what = f"unexpected keyword {tok.value!r}"
        else:
            what = f"unexpected {tok.value!r}"
        before = re.search(r"([A-Za-z_][A-Za-z0-9_]*)[\t ]*$", source.line(line)[:col - 1])
        if tok.type in _keyword_terminals() and "NAME" in err.expected:
            what = f"{tok.value!r} is a keyword of the tile DSL, so it cannot be a name here"
            hint = _keyword_hint(tok.value)
        elif before is not None and before.group(1) in keywords() and tok.type in ("EQUAL", "COLON", "COMMA", "RPAR"):
            # `const = 1`, `for in in ...`: the keyword was taken for a name
            word = before.group(1)
            what = f"{word!r} is a keyword of the tile DSL, so it cannot be a name"
            col = before.start(1) + 1
            hint = _keyword_hint(word)
        elif tok.type == "NAME" and tok.value in ("and", "or", "not"):
            hint = "use & | ~ for element-wise logic, with parentheses around comparisons"
        elif tok.type == "NAME" and tok.value in ("if", "while", "def", "return", "else", "elif"):
            hint = f"'{tok.value}' is not part of the tile DSL; see docs/dsl.md"
        names_expected = "NAME" in err.expected
        expected = tuple(sorted({_describe(t, names_expected) for t in err.expected}))
        if len(expected) > 8:
            expected = ()
        width = len(str(tok.value)) if tok.type not in ("_NL", "_INDENT", "_DEDENT", "$END") else 1
        if before is not None and what.endswith("so it cannot be a name"):
            width = len(before.group(1))
        span = Span(line, col, line, col + max(width, 1))
        return DSLError(what, span, kind="syntax error", source=source, expected=expected, hint=hint)
    if isinstance(err, UnexpectedCharacters):
        ch = source.line(line)[col - 1:col] or "?"
        return DSLError(f"unexpected character {ch!r}", Span(line, col, line, col + 1), kind="syntax error",
                        source=source)
    n = max(len(source.text.splitlines()), 1)
    return DSLError("unexpected end of file", Span(n, 1, n, 2), kind="syntax error", source=source)


def _bad_dedent(source: SourceFile) -> DSLError:
    """The first line whose indentation matches no enclosing block (lark's DedentError has no position)."""
    stack, depth = [0], 0
    for n, line in enumerate(source.text.splitlines(), start=1):
        code = re.sub(r"#.*", "", line)
        if code.strip() and depth == 0:
            width = len(code.expandtabs(TileIndenter.tab_len)) - len(code.expandtabs(TileIndenter.tab_len).lstrip())
            if width > stack[-1]:
                stack.append(width)
            else:
                while width < stack[-1]:
                    stack.pop()
                if width != stack[-1]:
                    return DSLError(f"this line is indented to column {width + 1}, which matches no enclosing "
                                    f"block (expected column {stack[-1] + 1})", Span(n, 1, n, width + 1),
                                    kind="syntax error", source=source)
        depth = max(depth + sum(code.count(c) for c in _OPEN) - sum(code.count(c) for c in _CLOSE), 0)
    return DSLError("inconsistent indentation", None, kind="syntax error", source=source)


#: Deepest nesting of the parse tree accepted (statements and expressions together). The
#: bundled kernels and every lowered level reach about 20; the front end and the passes walk
#: trees recursively, so a deeper program (300 nested unary minus, a 500-term sum written out,
#: 300 nested loops) gets a located error instead of exhausting the Python stack.
MAX_NESTING = 100


def _check_nesting(tree, source: SourceFile) -> None:
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Tree):
            continue
        if depth > MAX_NESTING:
            meta = node.meta
            span = Span(meta.line, meta.column, meta.end_line, meta.end_column) if not meta.empty else None
            raise DSLError(f"the kernel nests deeper than {MAX_NESTING} levels here (loops inside loops, or an "
                           f"expression of operators inside operators)", span, kind="syntax error", source=source,
                           hint="split a long expression into several statements (partial sums: s1 = a + b + c, "
                                "then s1 + d + ...), or flatten the loops")
        stack.extend((c, depth + 1) for c in node.children)


def parse(text: str, filename: str = "<kernel>") -> A.Kernel:
    """Parse one kernel. Raises DSLError (kind "syntax error") with a location on bad input."""
    source = SourceFile(filename, text)
    normalized = text.replace("\r\n", "\n")
    if not normalized.endswith("\n"):
        normalized += "\n"  # the final _NL lets the indenter close every block (LLM output often lacks it)
    try:
        tree = _parser().parse(normalized)
        _check_nesting(tree, source)
        kernel = _ToIR().transform(tree)
    except UnexpectedInput as err:
        raise _syntax_error(err, source) from None
    except DedentError:
        raise _bad_dedent(source) from None
    except VisitError as err:
        if isinstance(err.orig_exc, DSLError):
            raise err.orig_exc.located(source) from None
        raise
    except DSLError as err:
        raise err.located(source) from None
    return replace(kernel, source=source)


def parse_file(path) -> A.Kernel:
    from pathlib import Path

    from ..errors import UserError
    from ..inputs import check_file
    p = Path(path)
    check_file(p, "kernel file")          # a regular file of bounded size, before it is read
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise UserError(f"no such kernel file: {p}", hint="check the path") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UserError(f"cannot read kernel file {p}: {err}") from None
    return parse(text, str(p))


def _view_args(what: str, call: A.Call, span, hint: str):
    """The GM tensor's name and the items of the tuple of ``view(x, (...))`` / ``permute(x, (...))``,
    and the error maker of that call (syntax errors located at the offending node)."""
    def bad(message, node):
        return DSLError(f"{what}: {message}", getattr(node, "span", None) or span, kind="syntax error", hint=hint)
    if len(call.args) != 2 or call.kwargs:
        raise bad(f"takes a GM tensor and a tuple of {'extents' if what == 'view' else 'axes'}", call)
    base, items = call.args
    if not isinstance(base, A.Name):
        raise bad("the first argument is the name of a GM tensor (a parameter, scratch tensor or view)", base)
    return base.id, (items.items if isinstance(items, A.Tuple) else (items,)), bad


def _view(name: str, call: A.Call, span) -> A.View:
    """``name = view(x, (d0, d1, ...))``: the extents are dims, consts or integers (names the
    checker values at every shape), so the view's type is written like a parameter's."""
    base, items, bad = _view_args("view", call, span, "write view(x, (N, C, HW)): a GM tensor, then its new extents "
                                  "as dims, consts or integers (const HW = H * W first for a product)")
    dims = []
    for d in items:
        if isinstance(d, A.Name):
            dims.append(d.id)
        elif isinstance(d, A.Int):
            dims.append(d.value)
        else:
            raise bad("each extent is a dim, a const or an integer", d)
    return A.View(name, base, tuple(dims), span)


def _permute(name: str, call: A.Call, span) -> A.View:
    """``name = permute(x, (0, 2, 1, 3))``: a GM tensor and an order of its axes, as integers."""
    base, items, bad = _view_args("permute", call, span, "write permute(x, (0, 2, 1, 3)): a GM tensor, then the "
                                  "order of its axes as integers (axis i of the result is axis perm[i] of x)")
    for i in items:
        if not isinstance(i, A.Int):
            raise bad("each axis is an integer", i)
    return A.View(name, base, (), span, tuple(i.value for i in items))
