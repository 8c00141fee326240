"""Forward arguments that are lists of tensors (NPUKernelBench's Foreach family) are split into one
group per element (ascendcraft/foreach.py): a kernel takes one tensor and serves every element."""
from __future__ import annotations

import textwrap

from ascendcraft.checking import check_kernel
from ascendcraft.task import load_task


def list_task(tmp_path, forward: str, groups: str, signature: str):
    path = tmp_path / "op.py"
    path.write_text(textwrap.dedent(f"""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def forward(self, {signature}):
                return {forward}


        def get_input_groups():
            return {groups}


        def get_init_inputs():
            return []
        """))
    return path


EXP = """\
kernel fexp(xs: gm f32[*S]) -> (y: gm f32[*S]):
    const TS = 2048
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], exp(load(xs[b * TS:b * TS + TS])))
"""


def test_each_element_of_a_tensor_list_is_a_group_and_one_kernel_serves_them(tmp_path):
    op = list_task(tmp_path, "[torch.exp(x) for x in xs]",
                   "[[[torch.randn(5, 7)]], [[torch.randn(300), torch.randn(2, 3, 4), torch.randn(1)]]]", "xs")
    task = load_task(op)
    assert [g.shapes_text() for g in task.groups] == ["xs: f32[5, 7]", "xs: f32[300]", "xs: f32[2, 3, 4]", "xs: f32[1]"]
    assert [str(s) for s in task.groups[2].output_specs] == ["f32[2, 3, 4]"]
    result = check_kernel(EXP, op, trials=2)
    assert result.passed, result.summary()
    assert {result.shapes.index} | {o.shapes.index for o in result.groups} == {0, 1, 2, 3}


def test_a_one_d_tensor_of_one_value_per_element_goes_with_its_element(tmp_path):
    # [x + y * s for x, y, s in zip(xs, ys, scalars)]: scalars [L] is sliced, alpha [1] stays whole
    op = list_task(tmp_path, "[x + y * s * alpha for x, y, s in zip(xs, ys, scalars)]",
                   "[[[torch.randn(4), torch.randn(6)], [torch.randn(4), torch.randn(6)], torch.tensor([2.0, -3.0]),"
                   " torch.tensor([0.5])]]", "xs, ys, scalars, alpha")
    task = load_task(op)
    assert [g.shapes_text() for g in task.groups] == ["xs: f32[4], ys: f32[4], scalars: f32[1], alpha: f32[1]",
                                                      "xs: f32[6], ys: f32[6], scalars: f32[1], alpha: f32[1]"]
    kernel = """\
kernel addmul(xs: gm f32[N], ys: gm f32[N], scalars: gm f32[1], alpha: gm f32[1]) -> (z: gm f32[N]):
    for b in parallel(1):
        s = load(scalars[0:1]) * load(alpha[0:1])
        store(z[0:N], load(xs[0:N]) + load(ys[0:N]) * s)
"""
    result = check_kernel(kernel, op, trials=2)
    assert result.passed, result.summary()
    # the kernel that ignores the per-element scalar is caught at the element whose scalar is not 2
    wrong = kernel.replace("s = load(scalars[0:1]) * load(alpha[0:1])", "s = load(alpha[0:1]) * 2.0")
    assert not check_kernel(wrong, op, trials=1).passed


def test_an_op_that_combines_its_elements_is_not_split(tmp_path):
    # one flag over every tensor of the list: the outputs for the list are not the elements'
    op = list_task(tmp_path, "[torch.cat([x.flatten() for x in xs]), torch.stack([x.isinf().any() for x in xs]).any()]",
                   "[[[torch.randn(3)]], [[torch.randn(3), torch.randn(5)]]]", "xs")
    task = load_task(op)
    assert [g.shapes_text() for g in task.groups] == ["xs: f32[3]"]
    ((index, why),) = task.groups_unsupported
    assert index == 1 and "is a list of 2 tensors" in why and "unless Model.forward combines the elements" in why


def test_the_prompt_says_the_lists_are_split(tmp_path):
    from ascendcraft.chips import load_chip
    from ascendcraft.llm.prompt import build_prompt

    op = list_task(tmp_path, "[torch.exp(x) for x in xs]", "[[[torch.randn(5, 7), torch.randn(9)]]]", "xs")
    task = load_task(op)
    text = build_prompt(task, task.shapes(), load_chip("910B2")).messages[-1]["content"]
    assert "Model.forward's list arguments (`xs`) are split" in text
