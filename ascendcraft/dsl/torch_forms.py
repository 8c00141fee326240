"""The DSL forms of common torch functions that have no op of their own: the hint of an
"unknown function" error gives the form, so a kernel writer (or a model) needs no other page.

Each form is an expression in ``x`` (a tile; for ``softmax`` and ``log_softmax`` a row of one)
and is checked against torch on every draw of the verification policy by
tests/dsl/test_torch_forms.py, infinities included.
"""
from __future__ import annotations


def _expm1(y: str) -> str:
    """exp(y) - 1 without its cancellation near 0 (torch uses expm1): a Taylor polynomial below
    |y| = 0.1 (truncation under 2e-8 relative), exp(y) - 1.0 above (rounding under 2e-6 relative)."""
    return (f"where(abs({y}) < 0.1, {y} * (1.0 + {y} * (0.5 + {y} * (0.16666666666666666 + {y} * "
            f"(0.041666666666666664 + {y} * 0.008333333333333333)))), exp({y}) - 1.0)")


def _log1p(y: str) -> str:
    """log(1 + y) without its cancellation near 0 (torch uses log1p): a Taylor polynomial below
    |y| = 0.01 (truncation under 2e-11 relative), log(1.0 + y) above (rounding under 2e-5 relative)."""
    return (f"where(abs({y}) < 0.01, {y} * (1.0 - {y} * (0.5 - {y} * (0.3333333333333333 - {y} * "
            f"(0.25 - {y} * 0.2)))), log(1.0 + {y}))")


#: softplus with torch's threshold (x above 20 is x itself): mish is built on it too
_SOFTPLUS = f"where(x > 20.0, x, {_log1p('exp(minimum(x, 20.0))')})"

#: torch function name -> (the torch call on ``x``, as an op file writes it; the DSL form)
TORCH_FORMS: dict[str, tuple[str, str]] = {
    "silu": ("torch.nn.functional.silu(x)", "x * sigmoid(x)"),
    "gelu": ("torch.nn.functional.gelu(x)", "0.5 * x * (1.0 + erf(x * 0.7071067811865476))"),
    "softplus": ("torch.nn.functional.softplus(x)", _SOFTPLUS),
    "mish": ("torch.nn.functional.mish(x)", f"x * tanh({_SOFTPLUS})"),
    "elu": ("torch.nn.functional.elu(x)", f"where(x > 0.0, x, {_expm1('minimum(x, 0.0)')})"),
    "selu": ("torch.nn.functional.selu(x)",
             f"1.0507009873554805 * where(x > 0.0, x, 1.6732632423543772 * {_expm1('minimum(x, 0.0)')})"),
    "hardtanh": ("torch.nn.functional.hardtanh(x)", "clamp(x, -1.0, 1.0)"),
    "relu6": ("torch.nn.functional.relu6(x)", "clamp(x, 0.0, 6.0)"),
    "hardsigmoid": ("torch.nn.functional.hardsigmoid(x)", "clamp(x / 6.0 + 0.5, 0.0, 1.0)"),
    "hardswish": ("torch.nn.functional.hardswish(x)", "x * clamp(x / 6.0 + 0.5, 0.0, 1.0)"),
    "leaky_relu": ("torch.nn.functional.leaky_relu(x, 0.01)", "where(x >= 0.0, x, x * 0.01)"),
    "softsign": ("torch.nn.functional.softsign(x)", "x / (1.0 + abs(x))"),
    "logsigmoid": ("torch.nn.functional.logsigmoid(x)", f"minimum(x, 0.0) - {_log1p('exp(-abs(x))')}"),
    "square": ("torch.square(x)", "x * x"),
    "expm1": ("torch.expm1(x)", _expm1("x")),
    "log1p": ("torch.log1p(x)", _log1p("x")),
    "log2": ("torch.log2(x)", "log(x) * 1.4426950408889634"),
    "log10": ("torch.log10(x)", "log(x) * 0.4342944819032518"),
    "exp2": ("torch.exp2(x)", "exp(x * 0.6931471805599453)"),
    "sign": ("torch.sign(x)", "where(x > 0.0, 1.0, where(x < 0.0, -1.0, x * 0.0))"),
    "trunc": ("torch.trunc(x)", "where(x >= 0.0, floor(x), ceil(x))"),
    "softmax": ("torch.softmax(x, dim=-1)", "exp(x - max(x)) / sum(exp(x - max(x)))"),
    "log_softmax": ("torch.log_softmax(x, dim=-1)", "x - max(x) - log(sum(exp(x - max(x))))"),
}


def torch_form_hint(name: str) -> str | None:
    """The hint for a call of ``name``, a torch function the DSL writes as an expression; else None."""
    form = TORCH_FORMS.get(name)
    if form is None:
        return None
    return f"the DSL has no {name}(); write it as {form[1]} (x: the tile{', a row' if 'max(x)' in form[1] else ''})"
