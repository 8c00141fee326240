"""LLM assistance for passes: when a rule-based pass has no rule, it may ask a model.

The prompt (a jinja2 template next to this file) shows the statement, why no rule applies, and
the API-level ops the answer may use. The answer must be DSL statements; they replace the
statement, and the pass manager then checks the new program with the interpreter like any
other pass output, so a wrong answer is caught, never trusted. Without a model the pass fails
with its own message.
"""
from __future__ import annotations

from pathlib import Path

_TEMPLATES = Path(__file__).parent


def render_prompt(template: str, **values) -> str:
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_TEMPLATES)), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, autoescape=False)
    return env.get_template(template).render(**values)


def assist_select(ctx, kernel, stmt, why: str):
    """Statements replacing ``stmt`` proposed by the model, or None without a model."""
    if ctx is None or ctx.assist is None:
        return None
    from ascendcraft.dsl import ast as A
    from ascendcraft.dsl.ops import OPS
    from ascendcraft.dsl.parser import parse
    from ascendcraft.dsl.printer import print_kernel, stmt_lines
    from ascendcraft.errors import DSLError

    api = sorted((op.name, op.form) for op in OPS.values() if op.kind == "api")
    prompt = render_prompt("select_assist.j2", kernel=print_kernel(kernel), statement="\n".join(stmt_lines(stmt)),
                           why=why, api_ops=api)
    answer = ctx.assist(prompt)
    text = _code_block(answer)
    head = f"kernel _assist({', '.join(_params(kernel))}) -> (_o: gm f32[1]):\n"
    try:
        k = parse(head + "".join(f"    {line}\n" for line in text.splitlines() if line.strip()), "<llm answer>")
    except DSLError as err:
        raise DSLError(f"select: the model's lowering of this statement does not parse: {err.message}",
                       stmt.span, kind="lowering error") from None
    ctx.notes.append(f"select: statement at line {stmt.span.line if stmt.span else '?'} lowered by the model")
    return list(k.body)


def _params(kernel):
    from ascendcraft.dsl.printer import type_text
    return [f"{p.name}: {type_text(p.type)}" for p in kernel.inputs]


def _code_block(answer: str) -> str:
    import re
    m = re.search(r"```[a-zA-Z]*\n(.*?)```", answer, re.S)
    return m.group(1) if m else answer
