"""The forms an "unknown function" hint gives for torch functions the DSL has no op for are right:
each is checked against torch on every draw of the verification policy (infinities included)."""
import pytest

from ascendcraft.checking import check_kernel
from ascendcraft.cli import main
from ascendcraft.dsl.torch_forms import TORCH_FORMS

OP = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return {call}


def get_inputs():
    return [torch.randn(6, 301) * 4]


def get_init_inputs():
    return []
"""


def kernel(expr: str) -> str:
    return ("kernel k(src: gm f32[B, N]) -> (y: gm f32[B, N]):\n"
            "    for b in parallel(B):\n"
            "        x = load(src[b, :])\n"
            f"        store(y[b, :], {expr})\n")


@pytest.mark.parametrize("name", sorted(TORCH_FORMS))
def test_each_torch_form_computes_what_torch_does(tmp_path, name):
    call, form = TORCH_FORMS[name]
    op = tmp_path / f"{name}.py"
    op.write_text(OP.format(call=call))
    result = check_kernel(kernel(form), str(op))
    assert result.passed, result.summary()


def test_calling_a_torch_function_gets_its_form_as_the_hint(tmp_path, capsys):
    (tmp_path / "k.dsl").write_text(kernel("silu(x)"))
    op = tmp_path / "op.py"
    op.write_text(OP.format(call="torch.nn.functional.silu(x)"))
    assert main(["check", str(tmp_path / "k.dsl"), "--op", str(op)]) == 2
    err = capsys.readouterr().err
    assert "unknown function 'silu'" in err and "write it as x * sigmoid(x)" in err


NEAR_ZERO_OP = OP.replace("return {call}", "return {call} * 10000.0").replace("* 4]", "* 0.001]")


@pytest.mark.parametrize("name", sorted(TORCH_FORMS))
def test_each_torch_form_keeps_its_accuracy_near_zero(tmp_path, name):
    """Where torch computes without cancellation (expm1, log1p inside elu, softplus, ...), so must the
    form: inputs near 0 and the result scaled up show exp(x) - 1.0 or log(1.0 + x) losing digits."""
    call, form = TORCH_FORMS[name]
    op = tmp_path / f"{name}.py"
    op.write_text(NEAR_ZERO_OP.format(call=call))
    result = check_kernel(kernel(f"({form}) * 10000.0"), str(op), trials=3)
    assert result.passed, result.summary()
