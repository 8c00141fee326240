"""Tasks with input groups (get_input_groups(), as MultiKernelBench's NPUKernelBench levels) and
the kernels that serve them all: type variables, *B dims, optional inputs left out."""
from __future__ import annotations

import textwrap

import pytest

from ascendcraft.checking import check_kernel
from ascendcraft.errors import DSLError, UserError
from ascendcraft.task import load_task

_DTYPES = {"f16": "torch.float16", "bf16": "torch.bfloat16", "f32": "torch.float32", "f64": "torch.float64"}


def group_task(tmp_path, forward: str, groups: list[list], name: str = "op", signature: str = "x"):
    """An op file whose get_input_groups() returns ``groups``: each argument is ("t", dtype, shape)
    for a randn tensor, or a plain value (a number, a list, None)."""
    def arg(a):
        if isinstance(a, tuple) and a and a[0] == "t":
            return f"torch.randn({list(a[2])}, dtype={_DTYPES[a[1]]})"
        return repr(a)
    rows = ",\n        ".join("[" + ", ".join(arg(a) for a in g) + "]" for g in groups)
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(f"""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def forward(self, {signature}):
                return {forward}


        def get_input_groups():
            return [
                {rows},
            ]


        def get_init_inputs():
            return []
        """))
    return path


SCALE_GROUPS = [[("t", "f16", [])], [("t", "f32", [7])], [("t", "bf16", [3, 0, 5])], [("t", "f32", [2, 3, 4, 5])],
                [("t", "f16", [1, 1, 1, 1, 1, 1, 1, 3])], [("t", "bf16", [129, 65])]]

GENERIC_SCALE = """\
kernel scale[T: (f16, bf16, f32)](x: gm T[*S]) -> (y: gm T[*S]):
    const TS = 1024
    for b in parallel(cdiv(S, TS)):
        t = cast(load(x[b * TS:b * TS + TS]), f32)
        store(y[b * TS:b * TS + TS], cast(t * 2.0 + 1.0, T))
"""


def test_group_task_loads_every_group_a_kernel_can_serve(tmp_path):
    op = group_task(tmp_path, "x * 2 + 1", SCALE_GROUPS + [[("t", "f64", [4])]])
    task = load_task(op)
    assert [g.index for g in task.groups] == [0, 1, 2, 3, 4, 5]
    assert [i for i, _ in task.groups_unsupported] == [6]
    assert "float64" in task.groups_unsupported[0][1]
    assert task.real.index == 5                        # the largest group stands for the real shapes
    assert [tuple(g.input_specs[0].shape) for g in task.groups][:3] == [(), (7,), (3, 0, 5)]
    assert task.groups[2].describe().startswith("group 2 of 7 [0 B]: inputs x: bf16[3, 0, 5]")
    assert task.variant(task.real, seed=1) is None      # the groups are the shape sets


def test_group_inputs_are_drawn_per_seed_and_fixed_in_shape(tmp_path):
    task = load_task(group_task(tmp_path, "x * 2 + 1", SCALE_GROUPS))
    g = task.groups[3]
    a, b, c = g.make_inputs(0), g.make_inputs(0), g.make_inputs(1)
    assert a[0].equal(b[0]) and not a[0].equal(c[0])
    assert tuple(a[0].shape) == (2, 3, 4, 5)


def test_a_task_whose_groups_no_kernel_can_serve_says_why(tmp_path):
    with pytest.raises(UserError, match="no group of get_input_groups.* group 0: .*float64"):
        load_task(group_task(tmp_path, "x + 1", [[("t", "f64", [3])], [("t", "f64", [4])]]))


def test_generic_kernel_verified_over_dtypes_ranks_and_empty_tensors(tmp_path):
    op = group_task(tmp_path, "x * 2 + 1", SCALE_GROUPS)
    result = check_kernel(GENERIC_SCALE, op, trials=2)
    assert result.passed
    verified = {result.shapes.index} | {o.shapes.index for o in result.groups}
    assert verified == {0, 1, 2, 3, 4, 5}
    assert {o.checked.kernel.inputs[0].type.dtype for o in result.groups} == {"f16", "bf16", "f32"}
    summary = result.summary()
    assert "groups: 6 of 6 verified" in summary and "ranks 0, 1, 2, 3, 4, 8" in summary
    assert "1 with an empty tensor" in summary
    assert result.to_json()["groups"][0]["passed"] is True


def test_a_group_the_kernel_gets_wrong_is_named_by_index_and_shape(tmp_path):
    # right while the tensor fits two tiles (no group but the last is larger)
    wrong = GENERIC_SCALE.replace("parallel(cdiv(S, TS))", "parallel(minimum(cdiv(S, TS), 2))")
    groups = [[("t", "f32", [5000])], [("t", "f32", [3, 7])], [("t", "f32", [1000])]]
    result = check_kernel(wrong, group_task(tmp_path, "x * 2 + 1", groups), trials=2)
    assert not result.passed
    assert result.shapes.index == 0 and not result.report.passed     # the largest group is the main one
    # right where the extent is a multiple of the tile (the largest group), wrong at a tail
    tails = GENERIC_SCALE.replace("parallel(cdiv(S, TS))", "parallel(S // TS)")
    groups = [[("t", "f32", [2048])], [("t", "f16", [4, 256])], [("t", "f32", [3, 7])], [("t", "bf16", [5])]]
    result = check_kernel(tails, group_task(tmp_path, "x * 2 + 1", groups, name="op2"), trials=2)
    assert not result.passed and result.report.passed
    assert [(o.shapes.index, o.report.passed) for o in result.groups] == [(1, True), (2, False)]
    assert result.groups_skipped == ((3, "not reached: group 2 of 4 failed"),)
    assert "group 2 of 4 [168 B]: inputs x: f32[3, 7] -> outputs f32[3, 7]:\n" in result.summary()


def test_a_dtype_outside_the_type_variable_is_a_located_error_at_its_group(tmp_path):
    op = group_task(tmp_path, "x * 2 + 1", [[("t", "f32", [64])], [("t", "bf16", [8])]])
    with pytest.raises(DSLError) as e:
        check_kernel(GENERIC_SCALE.replace("(f16, bf16, f32)", "(f16, f32)"), op, trials=1)
    assert "group 1 of 2" in e.value.message and "x is declared T, one of f16, f32" in e.value.message
    assert "add bf16 to T's dtypes" in e.value.hint
    # the same at the largest group, where the static check runs
    op = group_task(tmp_path, "x * 2 + 1", [[("t", "f32", [4])], [("t", "bf16", [64])]], name="op2")
    with pytest.raises(DSLError, match=r"at group 1 of 2 \[256 B\]: inputs x: bf16\[64\].*x is declared T"):
        check_kernel(GENERIC_SCALE.replace("(f16, bf16, f32)", "(f16, f32)"), op, trials=1)


LAYER_NORM = """\
kernel layer_norm[T: (f16, f32)](x: gm T[*B, N], weight: gm T[N] = 1.0, bias: gm T[N] = 0.0,
                                   eps: f32 = 1e-5) -> (y: gm T[*B, N]):
    for r in parallel(B):
        t = cast(load(x[r, :]), f32)
        mu = sum(t) / N
        d = t - mu
        var = sum(d * d) / N
        u = d / sqrt(var + eps) * cast(load(weight), f32) + cast(load(bias), f32)
        store(y[r, :], cast(u, T))
"""


def test_optional_tensors_left_out_take_the_declared_fill_and_lists_bind_by_name(tmp_path):
    groups = [[("t", "f32", [4, 3, 32]), [32], ("t", "f32", [32]), ("t", "f32", [32])],
              [("t", "f16", [5, 16]), [16], ("t", "f16", [16]), None],
              [("t", "f32", [64]), [64], None, None]]
    op = group_task(tmp_path, "torch.nn.functional.layer_norm(x, normalized_shape, weight, bias)", groups,
                    signature="x, normalized_shape, weight=None, bias=None")
    result = check_kernel(LAYER_NORM, op, trials=2)
    assert result.passed, result.summary()
    assert len(result.groups) == 2


def test_a_list_argument_binds_only_by_name(tmp_path):
    op = group_task(tmp_path, "x.sum(dims)", [[("t", "f32", [4, 8]), [1]]], signature="x, dims")
    kernel = "kernel s(a: gm f32[R, C], b: i32) -> (y: gm f32[R]):\n    pass\n"
    with pytest.raises(DSLError, match=r"forward argument 1 \(dims\) is the list \[1\], which binds only by name"):
        check_kernel(kernel, op, trials=1)
    with pytest.raises(DSLError, match="the DSL has no string or list attributes"):
        check_kernel(kernel.replace("a: gm", "x: gm").replace("b: i32", "dims: i32"), op, trials=1)


def test_a_left_out_input_without_a_default_says_how_to_give_one(tmp_path):
    op = group_task(tmp_path, "x if w is None else x * w", [[("t", "f32", [8]), None]], signature="x, w=None")
    with pytest.raises(DSLError, match=r"forward argument 1 \(w\) is left out \(None\).*no default") as e:
        check_kernel("kernel m(x: gm f32[N], w: gm f32[N]) -> (y: gm f32[N]):\n    pass\n", op, trials=1)
    assert "w: gm f32[...] = 0.0" in e.value.hint


def test_lower_runs_one_build_per_dtype_at_every_group_of_it(tmp_path):
    groups = [[("t", "f32", [3000])], [("t", "f32", [])], [("t", "f32", [2, 0, 3])], [("t", "f16", [5, 7])],
              [("t", "f32", [3, 1, 17])]]
    from ascendcraft.lower import lower
    result = lower(GENERIC_SCALE, group_task(tmp_path, "x * 2 + 1", groups), trials=2)
    assert result.verification.passed
    ran = sorted(o.shapes.index for o, r in result.other_verifications if r.passed)
    assert ran == [1, 2, 4]                           # every f32 group, from one build
    # the f16 group: the kernel's f16 instance, lowered and run on its own
    (f16,) = result.instances
    assert f16.check.shapes.index == 3 and f16.verification.passed and f16.spec.kernel_source != \
        result.spec.kernel_source
    assert "f16 instance: lowered, compiled and verified on sim at groups 3" in result.summary()
    assert result.to_json()["groups_not_lowered"] == []
    assert result.to_json()["instances"][0]["dtypes"] == "f16"


def npukernelbench_folder(tmp_path):
    """A task folder in NPUKernelBench's layout: the reference imports torch_npu (not installed
    here) and names kernel_gen_ops in ModelNew; each row of test_cases.csv is a case."""
    folder = tmp_path / "level1" / "Math" / "ScaleAdd"
    (folder / "validation").mkdir(parents=True)
    (folder / "validation" / "module.py").write_text(textwrap.dedent("""\
        import torch
        import torch_npu
        from torch_npu.contrib import transfer_to_npu
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self, alpha):
                super().__init__()
                self.alpha = alpha

            def forward(self, x, y):
                return x + self.alpha * y


        class ModelNew(nn.Module):
            def forward(self, x, y):
                import kernel_gen_ops
                return kernel_gen_ops.scale_add(x, y)
        """))
    (folder / "validation" / "prepare_inputs.py").write_text(textwrap.dedent("""\
        import torch


        def get_inputs(param, device=None):
            shape = eval(param.get('shape', '[1]'))
            dtype = getattr(torch, param.get('dtype', 'float16'))
            return (torch.randn(shape, device=device, dtype=dtype), torch.randn(shape, device=device, dtype=dtype))


        def get_init_inputs(param, device=None):
            return [param['alpha']]
        """))
    (folder / "validation" / "test_cases.csv").write_text(
        "case_id;shape;dtype;alpha\n0;[4, 33];float16;0.5\n1;[2, 3, 40];float32;2\n2;[7];bfloat16;1.25\n")
    (folder / "api_desc.md").write_text("# ScaleAdd\n\nz = x + alpha * y\n")
    return folder


def test_npukernelbench_task_folders_load_as_group_tasks(tmp_path):
    folder = npukernelbench_folder(tmp_path)
    task = load_task(folder)
    assert (task.name, task.category) == ("ScaleAdd", "level1")
    assert task.description.startswith("# ScaleAdd")
    assert [g.init_args for g in task.groups] == [(0.5,), (2,), (1.25,)]     # per row; 2 read as an int
    assert [g.attributes["alpha"] for g in task.groups] == [0.5, 2, 1.25]
    kernel = """\
kernel scale_add[T: (f16, bf16, f32)](x: gm T[*S], y: gm T[*S], alpha: f32) -> (z: gm T[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        u = cast(load(x[b * TS:b * TS + TS]), f32) + alpha * cast(load(y[b * TS:b * TS + TS]), f32)
        store(z[b * TS:b * TS + TS], cast(u, T))
"""
    result = check_kernel(kernel, folder, trials=2)
    assert result.passed, result.summary()
    assert len(result.groups) == 2


def test_a_reference_that_needs_the_npu_says_so(tmp_path):
    folder = npukernelbench_folder(tmp_path)
    module = folder / "validation" / "module.py"
    module.write_text(module.read_text().replace("return x + self.alpha * y", "return torch_npu.npu_scale_add(x, y)"))
    with pytest.raises(UserError, match="torch_npu.npu_scale_add runs only on an NPU"):
        load_task(folder)


def test_prompt_lists_the_groups_and_the_task_description(tmp_path):
    from ascendcraft.chips import load_chip
    from ascendcraft.llm.prompt import build_prompt

    task = load_task(npukernelbench_folder(tmp_path))
    text = build_prompt(task, task.shapes(), load_chip("910B2")).messages[-1]["content"]
    assert "z = x + alpha * y" in text                      # api_desc.md
    assert "The op comes with 3 input groups, and ONE kernel must serve every group" in text
    assert "- dtypes: f16 (1), f32 (1), bf16 (1)" in text
    assert "- ranks: x: 1 to 3; y: 1 to 3" in text
    assert "inputs x: bf16[7], y: bf16[7] -> outputs bf16[7]" in text


def test_bench_finds_task_folders_by_level(tmp_path):
    from ascendcraft.bench.tasks import find_tasks

    folder = npukernelbench_folder(tmp_path)
    tasks = find_tasks([str(tmp_path)])
    assert [(t.op, t.id) for t in tasks] == [(folder, "level1/ScaleAdd")]


def test_a_reference_beyond_the_output_dtype_is_judged_as_the_infinity_rounding_gives(tmp_path):
    # exp(100 x) passes f16's 65504 for x > 0.11: the float64 reference is finite there, the f16 result
    # every correct kernel stores (and torch's own) is inf
    op = group_task(tmp_path, "torch.exp(x * 100)", [[("t", "f16", [64, 33])], [("t", "bf16", [5, 7])]])
    kernel = """\
kernel e[T: (f16, bf16)](x: gm T[*S]) -> (y: gm T[*S]):
    const TS = 4096
    for b in parallel(cdiv(S, TS)):
        store(y[b * TS:b * TS + TS], cast(exp(cast(load(x[b * TS:b * TS + TS]), f32) * 100.0), T))
"""
    result = check_kernel(kernel, op, trials=2)
    assert result.passed, result.summary()


def test_rows_of_an_empty_group_lower_without_reading_before_the_tensor(tmp_path):
    # a row loop that reads a reduction is prefetched one row ahead; with B = 0 its first row would
    # be row -1 (the prefetch clamps to B - 1): such a load stays in the loop
    groups = [[("t", "f32", [4, 3, 64]), [64], None, None], [("t", "f32", [0, 64]), [64], None, None]]
    op = group_task(tmp_path, "torch.nn.functional.layer_norm(x, normalized_shape, weight, bias)", groups,
                    signature="x, normalized_shape, weight=None, bias=None")
    from ascendcraft.lower import lower
    result = lower(LAYER_NORM, op, trials=2)
    assert [(o.shapes.index, r.passed) for o, r in result.other_verifications] == [(1, True)]


def test_a_case_whose_inputs_cannot_be_made_is_set_aside_alone(tmp_path):
    folder = npukernelbench_folder(tmp_path)
    cases = folder / "validation" / "test_cases.csv"
    cases.write_text(cases.read_text() + "3;[5];int32;1\n")          # torch.randn of an integer dtype raises
    task = load_task(folder)
    assert [g.index for g in task.groups] == [0, 1, 2]
    ((index, why),) = task.groups_unsupported
    assert index == 3 and why.startswith("get_inputs(row of case 3) failed: RuntimeError")


# ----------------------------------------------------------------------------- star dims around an axis

DIM_SUM = """\
kernel dim_sum[T: (f16, bf16, f32)](x: gm T[*A(dim), D, *B], dim: i32) -> (y: gm f32[*A, *B]):
    const TB = 256
    for a, k in parallel(A, cdiv(B, TB)):
        b = k * TB
        acc = cast(load(x[a, 0, b:b + TB]), f32)
        for d in range(1, D):
            acc = acc + cast(load(x[a, d, b:b + TB]), f32)
        store(y[a, b:b + TB], acc)
"""

DIM_GROUPS = [[("t", "f32", [6]), 0], [("t", "f16", [4, 9]), -1], [("t", "f32", [4, 9]), 0],
              [("t", "bf16", [2, 3, 5]), 1], [("t", "f32", [2, 3, 5, 7]), -3], [("t", "f32", [1, 2, 1, 3, 1, 4]), 3],
              [("t", "f32", [3, 300]), -2]]


def test_a_star_dim_counted_by_dim_reads_any_rank_around_that_axis(tmp_path):
    op = group_task(tmp_path, "x.float().sum(dim)", DIM_GROUPS, signature="x, dim")
    result = check_kernel(DIM_SUM, op, trials=2)
    assert result.passed, result.summary()
    assert {result.shapes.index} | {o.shapes.index for o in result.groups} == set(range(len(DIM_GROUPS)))
    assert "ranks 1, 2, 3, 4, 6" in result.summary()


def test_a_count_out_of_range_is_a_binding_error_at_its_group(tmp_path):
    kernel = """\
kernel double(x: gm f32[*A(2), *B]) -> (y: gm f32[*A, *B]):
    for a in parallel(A):
        store(y[a, :], load(x[a, :]) * 2.0)
"""
    op = group_task(tmp_path, "x * 2", [[("t", "f32", [4, 5, 6])], [("t", "f32", [3])]])
    with pytest.raises(DSLError) as e:
        check_kernel(kernel, op, trials=1)
    assert "group 1 of 2" in e.value.message and "*A covers 2 axes but x has 1" in e.value.message
    assert "must be in [-1, 1]" in e.value.hint
    # a torch dim out of range never gets here: the reference refuses the group first
    op = group_task(tmp_path, "x.float().sum(dim)", [[("t", "f32", [4, 9]), 1], [("t", "f32", [3]), 2]],
                    signature="x, dim", name="op2")
    result = check_kernel(DIM_SUM, op, trials=1)
    assert result.passed and "Dimension out of range" in dict(result.groups_skipped)[1]


def test_star_dims_that_cannot_split_a_tensor_say_so(tmp_path):
    # D needs one axis after A's dim axes: dim = rank leaves none
    op = group_task(tmp_path, "x.float().sum(-1)", [[("t", "f32", [4, 9]), 2]], signature="x, dim")
    with pytest.raises(DSLError, match=r"x is declared \[\*A, D, \*B\] but the op's input 0 is f32\[4, 9\]: its "
                                       r"axes cannot be split so"):
        check_kernel(DIM_SUM, op, trials=1)


def test_prompt_lists_the_values_of_a_scalar_argument_that_differ_between_groups(tmp_path):
    from ascendcraft.chips import load_chip
    from ascendcraft.llm.prompt import build_prompt

    task = load_task(group_task(tmp_path, "x.float().sum(dim)", DIM_GROUPS, signature="x, dim"))
    text = build_prompt(task, task.shapes(), load_chip("910B2")).messages[-1]["content"]
    assert "- values that differ between groups: dim: -3, -2, -1, 0, 1, 3 (one kernel takes them all)" in text
    assert "`x: gm T[*A(dim), D, *B]` with `dim: i32`" in text
    # a scalar the same in every group is no news
    same = load_task(group_task(tmp_path, "x * s", [[("t", "f32", [4]), 2.0], [("t", "f32", [5, 6]), 2.0]],
                                name="op2", signature="x, s"))
    assert "values that differ" not in build_prompt(same, same.shapes(), load_chip("910B2")).messages[-1]["content"]
