"""An AscendC reply in MultiKernelBench's direct-launch form, read without running it.

MultiKernelBench's ``ascendc_direct_launch`` backend asks a model for one JSON document: ``sources`` (a list of
``{"path", "content"}``: kernel ``.cpp`` files with ``<<<>>>`` launch wrappers, a pybind11 binding, headers,
and ``ModelNew.py``), ``build`` (optional ``kernel_sources``, ``binding_sources``, ``module_name``) and
``entry`` (``{"model": "ModelNew.py::ModelNew"}``); its backend builds the C++ into a Python extension and
runs ``ModelNew``, whose ``forward`` calls the extension (``backends/ascendc_direct_launch_backend.py``).

Here nothing in the reply is run as Python: ``ModelNew.py`` is read from its syntax tree, and its ``forward``
must return one call of the extension's function whose arguments are ``forward``'s own parameters,
attributes ``__init__`` set from its parameters or constants, and constants. That call is what the
simulator makes (``ascendcraft.sim.direct_op``), so the reply's C++ computes everything the op returns.
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from ..llm.extract import fenced_blocks
from ..sim.direct_op import DirectOperator
from ..sim.host_project import HOST_SOURCE_EXTS
from ..sim.signature import strip_comments
from .reply import ReplyFormError

#: what a reply may hold
MAX_FILES = 64
MAX_BYTES = 1 << 20
_MODULE_RE = re.compile(r"PYBIND11_MODULE\s*\(\s*([A-Za-z_]\w*)\s*,")
FORM_HINT = ('reply with one ```json block: {"sources": [{"path": "kernel/op_kernel.cpp", "content": "..."}, '
             '{"path": "kernel/pybind11.cpp", ...}, {"path": "ModelNew.py", ...}], "entry": {"model": '
             '"ModelNew.py::ModelNew"}}')


@dataclass(frozen=True)
class CallArg:
    """One argument of the call ``ModelNew.forward`` makes: the forward's parameter ``index``, the ``index``-th
    ``__init__`` parameter (``value``: its default), or a constant ``value``."""

    kind: str            # "forward" | "init" | "const"
    index: int | None = None
    value: object = None      # a constant, or the parameter's default
    text: str = ""            # as written, for messages
    has_default: bool = False  # a forward or __init__ parameter with a default (``value``)


@dataclass(frozen=True)
class DirectReply:
    operator: DirectOperator
    function: str                 # the extension function forward calls
    args: tuple                   # CallArg per argument


def is_direct_reply(text: str) -> bool:
    """Whether a reply looks like the direct-launch form (a JSON document of sources with a pybind11 binding or
    a ModelNew)."""
    return '"sources"' in text and any(k in text for k in ("PYBIND11_MODULE", "ascendc_direct_launch", "ModelNew"))


def extract_direct(text: str) -> DirectReply:
    """The operator and the call a reply holds; a reply not in the form is a :class:`ReplyFormError`."""
    spec = _document(text)
    files = _sources(spec)
    build = spec.get("build") if isinstance(spec.get("build"), dict) else {}
    cpp = sorted(p for p in files if p.endswith(HOST_SOURCE_EXTS))
    defined = {p: _MODULE_RE.findall(strip_comments(t)) for p, t in files.items()}     # PYBIND11_MODULE names
    binding = _listed(build, "binding_sources", files) or [p for p in cpp if defined[p]]
    if not binding:
        raise ReplyFormError("no source defines the extension module (PYBIND11_MODULE(name, m) { m.def(...); })",
                             hint="put the binding in a .cpp source, e.g. kernel/pybind11.cpp")
    kernels = _listed(build, "kernel_sources", files) or [p for p in cpp if p not in binding]
    if not kernels:
        raise ReplyFormError("the reply has no kernel source (a .cpp file besides the binding)", hint=FORM_HINT)
    names = sorted({m for p in binding for m in defined[p]} - {"TORCH_EXTENSION_NAME"})
    module = build.get("module_name") if isinstance(build.get("module_name"), str) else (names[0] if names else
                                                                                       "benchmark_ops")
    if not re.fullmatch(r"[A-Za-z_]\w*", module):
        raise ReplyFormError(f"build.module_name {module!r} is not a C++ identifier")
    entry = spec.get("entry", {}).get("model", "ModelNew.py::ModelNew") if isinstance(spec.get("entry"), dict) \
        else "ModelNew.py::ModelNew"
    model_path, _, class_name = str(entry).partition("::")
    model_src = files.get(str(PurePosixPath(model_path)))
    if model_src is None:
        raise ReplyFormError(f"entry.model names {model_path}, which is not among the sources", hint=FORM_HINT)
    function, args = _forward_call(model_src, class_name or "ModelNew", module)
    sources = {p: t for p, t in files.items() if not p.endswith(".py")}
    return DirectReply(DirectOperator(sources, tuple(binding), tuple(kernels), module), function, args)


def _document(text: str) -> dict:
    """The reply's JSON object: its last fenced block holding "sources", else the whole reply, else the text
    from its first { to its last }."""
    candidates = [body for _, body in fenced_blocks(text) if '"sources"' in body][::-1] + [text.strip()]
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        candidates.append(text[first:last + 1])
    error = None
    for c in candidates:
        try:
            doc = json.loads(c)
        except ValueError as err:
            error = error or err
            continue
        if isinstance(doc, dict):
            return doc
    where = f": line {error.lineno} column {error.colno}: {error.msg}" if isinstance(error, json.JSONDecodeError) else ""
    raise ReplyFormError(f"the reply's JSON document does not parse{where}", hint=FORM_HINT)


def _sources(spec: dict) -> dict[str, str]:
    sources = spec.get("sources")
    if not isinstance(sources, list) or not sources:
        raise ReplyFormError('the reply\'s JSON has no "sources": a non-empty list of {"path", "content"}',
                             hint=FORM_HINT)
    if len(sources) > MAX_FILES:
        raise ReplyFormError(f"the reply holds {len(sources)} sources; at most {MAX_FILES}")
    files: dict[str, str] = {}
    for k, s in enumerate(sources):
        if not isinstance(s, dict) or not isinstance(s.get("path"), str) or not isinstance(s.get("content"), str):
            raise ReplyFormError(f"sources[{k}] is not {{\"path\": string, \"content\": string}}", hint=FORM_HINT)
        path = PurePosixPath(s["path"])
        if path.is_absolute() or ".." in path.parts or not re.fullmatch(r"[\w./+-]+", s["path"]) or str(path) in files:
            raise ReplyFormError(f"sources[{k}].path {s['path']!r} is not a new relative path inside the operator",
                                 hint="name each file once, relative, without .. (kernel/op_kernel.cpp)")
        files[str(path)] = s["content"]
    if sum(len(t) for t in files.values()) > MAX_BYTES:
        raise ReplyFormError(f"the reply's sources hold more than {MAX_BYTES:,} characters")
    return files


def _listed(build: dict, key: str, files: dict) -> list[str]:
    listed = build.get(key) or []
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        raise ReplyFormError(f"build.{key} is not a list of source paths")
    missing = [p for p in listed if p not in files]
    if missing:
        raise ReplyFormError(f"build.{key} names {', '.join(missing)}, which the sources do not hold")
    return list(listed)


# ----------------------------------------------------------------------------------------------- ModelNew
_FORWARD_HINT = ("ModelNew.forward must be one statement, `return ext.function(a, b, ...)`, whose arguments are "
                 "forward's parameters, self attributes __init__ sets from its parameters or to constants, and "
                 "constants: the extension computes everything the op returns")


def _forward_call(source: str, class_name: str, module: str) -> tuple[str, tuple]:
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        raise ReplyFormError(f"ModelNew.py does not parse: line {err.lineno}: {err.msg}") from None
    modules, functions = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == module:
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and node.module == module:
            for a in node.names:
                functions[a.asname or a.name] = a.name
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if cls is None:
        raise ReplyFormError(f"ModelNew.py defines no class {class_name}")
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    forward = methods.get("forward")
    if forward is None:
        raise ReplyFormError(f"{class_name} has no forward method", hint=_FORWARD_HINT)
    params = _parameters(forward)
    attrs = _init(methods.get("__init__"))
    body = [s for s in forward.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    call = body[0].value if len(body) == 1 and isinstance(body[0], ast.Return) else None
    if not isinstance(call, ast.Call):
        raise ReplyFormError(f"{class_name}.forward does more than return one call of the extension", hint=_FORWARD_HINT)
    f = call.func
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in modules:
        function = f.attr
    elif isinstance(f, ast.Name) and f.id in functions:
        function = functions[f.id]
    else:
        raise ReplyFormError(f"{class_name}.forward returns {ast.unparse(f)}(...), not a function of the extension "
                             f"module {module} (import {module} as ...)", hint=_FORWARD_HINT)
    if call.keywords:
        raise ReplyFormError(f"{class_name}.forward passes keyword arguments to {function}; pass them in order",
                             hint=_FORWARD_HINT)
    return function, tuple(_call_arg(a, params, attrs, class_name) for a in call.args)


def _parameters(fn: ast.FunctionDef) -> list[tuple[str, bool, object]]:
    """A method's parameters after self: (name, whether it has a default, the default if a constant)."""
    names = [a.arg for a in fn.args.args[1:]]
    first = len(names) - len(fn.args.defaults)
    return [(n, k >= first, _constant(fn.args.defaults[k - first]) if k >= first else None)
            for k, n in enumerate(names)]


def _init(init: ast.FunctionDef | None) -> dict:
    """The attributes __init__ sets from its parameters or to constants: name -> CallArg (None: computed)."""
    if init is None:
        return {}
    params = _parameters(init)
    names = [n for n, _, _ in params]
    attrs = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                if isinstance(node.value, ast.Name) and node.value.id in names:
                    k = names.index(node.value.id)
                    attrs[t.attr] = CallArg("init", k, params[k][2], node.value.id, params[k][1])
                else:
                    value = _constant(node.value)
                    attrs[t.attr] = CallArg("const", None, value, ast.unparse(node.value)) if value is not None \
                        else None
    return attrs


def _constant(node):
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (bool, int, float, str, list, tuple)) else None


def _call_arg(node: ast.AST, params: list, attrs: dict, class_name: str) -> CallArg:
    text = ast.unparse(node)
    # x.contiguous() is x: every tensor the simulator passes is contiguous
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "contiguous" \
            and not node.args and not node.keywords:
        node = node.func.value
    names = [n for n, _, _ in params]
    if isinstance(node, ast.Name) and node.id in names:
        k = names.index(node.id)
        return CallArg("forward", k, params[k][2], text, params[k][1])
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        found = attrs.get(node.attr)
        if found is None:
            raise ReplyFormError(f"{class_name}.forward passes {text}, which __init__ does not set from one of its "
                                 f"parameters or to a constant", hint=_FORWARD_HINT)
        return found
    if isinstance(node, ast.Constant) and node.value is None:
        return CallArg("const", None, None, text)
    value = _constant(node)
    if value is None:
        raise ReplyFormError(f"{class_name}.forward passes {text} to the extension", hint=_FORWARD_HINT)
    return CallArg("const", None, value, text)
