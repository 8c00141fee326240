"""An AscendC reply in MultiKernelBench's custom-operator form, read without running it.

MultiKernelBench asks a model for a Python file of six strings (``project_json_src``,
``host_tiling_src``, ``host_operator_src``, ``kernel_src``, ``python_bind_src``, ``model_src``) and
writes the first four into an msopgen project as ``op_host/<op>_tiling.h``, ``op_host/<op>.cpp`` and
``op_kernel/<op>.cpp`` (its ``utils/ascend_compile_pipeline.py``; ``<op>`` is the operator's name
in snake case). The reply is untrusted: its strings are read from the syntax tree as literals,
never executed, and the Python binding and ``ModelNew`` it carries are not used (our binding
takes the op's forward tensors in the OpDef's input order and its attributes by name).
"""
from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError
from ..llm.extract import fenced_blocks
from ..cann_names import snake_case

#: The strings a reply must define, and the project file each becomes ({op}: the snake-case name).
FILES = {"host_tiling_src": "op_host/{op}_tiling.h", "host_operator_src": "op_host/{op}.cpp",
         "kernel_src": "op_kernel/{op}.cpp"}
NAMES = ("project_json_src", *FILES)


class ReplyFormError(UserError):
    """The reply is not a custom-operator project: the model's to fix (stage ``extract``)."""


@dataclass(frozen=True)
class ProjectSources:
    op: str                 # the operator's name, PascalCase as its project JSON and OpDef write it
    files: dict             # project-relative path -> text

    @property
    def snake(self) -> str:
        return snake_case(self.op)

    def write(self, folder: Path) -> Path:
        for rel, text in self.files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return folder


def is_ascendc_reply(text: str) -> bool:
    """Whether a reply looks like the custom-operator form (it assigns the kernel's source)."""
    return re.search(r"^\s*kernel_src\s*=", text, re.M) is not None


def extract_project(text: str) -> ProjectSources:
    """The project a reply holds: its ``python`` block (or the whole reply) parsed, the six
    names' string literals taken; a missing one, or one that is not a plain string literal, is a
    :class:`ReplyFormError` naming it."""
    blocks = [body for tag, body in fenced_blocks(text) if "kernel_src" in body]
    code = blocks[-1] if blocks else text
    try:
        tree = ast.parse(code)
    except SyntaxError as err:
        raise ReplyFormError(f"the reply's Python does not parse: line {err.lineno}: {err.msg}",
                             hint="reply with one ```python block assigning the strings " + ", ".join(NAMES))
    values: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in NAMES:
                values[name] = _literal(node.value, name)
    missing = [n for n in NAMES if n not in values]
    if missing:
        raise ReplyFormError(f"the reply does not assign {', '.join(missing)}",
                             hint="a custom-operator reply assigns each of " + ", ".join(NAMES) + " a string")
    op = _op_name(values["project_json_src"])
    files = {path.format(op=snake_case(op)): values[name] for name, path in FILES.items()}
    return ProjectSources(op, files)


def _literal(node: ast.AST, name: str) -> str:
    """A string written as literals only (implicit or ``+`` concatenation too): nothing is evaluated."""
    try:
        value = ast.literal_eval(_concatenated(node))
    except (ValueError, TypeError, SyntaxError):
        value = None
    if not isinstance(value, str):
        raise ReplyFormError(f"{name} is not a string literal (line {getattr(node, 'lineno', '?')})",
                             hint="write each source as a plain (triple-quoted) string, no f-strings or calls")
    return value


def _concatenated(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _concatenated(node.left), _concatenated(node.right)
        if all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in (left, right)):
            return ast.Constant(left.value + right.value)
    return node


def _op_name(project_json: str) -> str:
    try:
        doc = json.loads(project_json)
        op = doc[0]["op"] if isinstance(doc, list) else doc["op"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ReplyFormError("project_json_src is not msopgen's JSON: a list holding one object with an \"op\" name",
                             hint='[{"op": "AddCustom", "input_desc": [...], "output_desc": [...]}]') from None
    if not isinstance(op, str) or not re.fullmatch(r"[A-Z][A-Za-z0-9]*", op):
        raise ReplyFormError(f"project_json_src names the operator {op!r}, not a PascalCase name",
                             hint="e.g. \"op\": \"LeakyReluCustom\"")
    return op
