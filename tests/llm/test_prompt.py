"""The generation prompt: language reference, rules with the chip's numbers, examples, the op and its shapes."""
from pathlib import Path

import jinja2
import pytest

from ascendcraft.chips import load_chip
from ascendcraft.errors import UserError
from ascendcraft.llm import prompt as P
from ascendcraft.task import load_task
from llm_replies import LEAKY_OP, SOFTMAX_OP

REPO = Path(__file__).resolve().parents[2]
CHIP = load_chip("910B2")


def build(op, **kw):
    task = load_task(op)
    return P.build_prompt(task, task.shapes(max_bytes=kw.pop("max_bytes", 64 << 20)), CHIP, **kw)


def test_prompt_holds_reference_rules_examples_op_and_shapes():
    p = build(LEAKY_OP)
    system, user = (m["content"] for m in p.messages)
    assert [m["role"] for m in p.messages] == ["system", "user"]
    assert (REPO / "docs" / "dsl.md").read_text().strip() in system          # the whole language reference
    assert "192 KiB on 910B2" in system and "48 vector cores" in system and "bf16" in system
    assert "```dsl" in system
    # the op's folder (tests/data/tasks) is no category: it is inferred from the code
    assert p.category == "activation" and len(p.examples) == 2
    assert all(e.startswith("activation/") and e != "activation/leaky_relu" for e in p.examples)
    for e in p.examples:
        assert (REPO / "examples" / e / "kernel.dsl").read_text().strip() in user
    assert LEAKY_OP.read_text().strip() in user
    assert "forward input `x`: f32[8, 257]" in user and "output 0: f32[8, 257]" in user
    assert "`Model(0.2)`" in user and "negative_slope = 0.2" in user
    assert user.rstrip().endswith("Reply with the kernel in one ```dsl block.")
    assert "{{" not in system + user and "{%" not in system + user


def test_reduced_verification_shapes_are_mentioned():
    user = build(SOFTMAX_OP, max_bytes=1 << 20).messages[1]["content"]
    assert "forward input `x`: f32[6, 70000]" in user
    assert "verified at smaller shapes of the same rank" in user


def test_examples_come_from_the_task_folder_and_never_show_the_op_itself():
    p = build(REPO / "examples" / "normalization" / "layer_norm" / "op.py")
    assert p.category == "normalization" and "normalization/layer_norm" not in p.examples
    assert all(e.startswith("normalization/") for e in p.examples)
    p = build(REPO / "examples" / "matmul" / "matmul" / "op.py")
    assert "matmul/matmul" not in p.examples and all(e.startswith("matmul/") for e in p.examples)
    # fuse's other examples, never the op's own: the most alike first (shared name words, then code)
    p = build(REPO / "examples" / "fuse" / "matmul_bias_relu" / "op.py")
    assert sorted(p.examples) == ["fuse/gemm_group_norm_hardtanh", "fuse/matmul_sigmoid_sum"]


@pytest.mark.parametrize("code, category", [
    ("return torch.cumsum(x, dim=self.dim)", "math"),
    ("return torch.nn.functional.smooth_l1_loss(p, t)", "loss"),
    ("return torch.sum(x, dim=1, keepdim=True)", "reduce"),
    ("return torch.sigmoid(x)", "activation"),
    ("return self.pool(x)", "pooling"),
    ("return torch.relu(torch.matmul(a, b) + c)", "fuse"),
    ("return x.transpose(0, 1)", None),
    ("return torch.argmax(x, dim=self.dim)", "index"),
    ("return torch.gather(x, 1, idx)", "index"),
    ("return self.embedding(x)", "index"),
    ("return x.index_add(0, index, src)", "index"),
    ("return x + bias.view(1, -1, 1, 1)", "broadcast"),
    ("return torch.where(cond, x, y)", "broadcast"),
    ("return torch.nn.functional.scaled_dot_product_attention(q, k, v)", "attention"),
    ("out, _ = self.mha(x, x, x, attn_mask=m); return out", "attention"),
    ("return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v", "attention"),
    ("return self.conv1(x)", None),
    ("return torch.nn.functional.conv2d(x, self.w)", "convolution"),
    ("return self.conv_transpose3d(x)", "convolution"),
    ("return F.interpolate(x, scale_factor=2.0, mode='bilinear')", "resize"),
])
def test_category_inferred_from_the_model_code(code, category):
    src = f"import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        {code}\n"
    assert P.infer_category(src) == category


@pytest.mark.parametrize("category", ["matmul", "broadcast", "index", "attention", "convolution", "resize"])
def test_a_task_of_a_category_gets_that_categorys_examples(tmp_path, category):
    """A task in MultiKernelBench's reference/<category>/ is shown the bundled examples of it."""
    examples = tmp_path / "examples"
    for cat, name in [(category, "first"), (category, "second"), ("activation", "leaky_relu"),
                      ("reduce", "sum_reduction")]:
        d = examples / cat / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "kernel.dsl").write_text(f"kernel {name}(x: gm f32[N]) -> (y: gm f32[N]):\n    store(y, load(x))\n")
        (d / "op.py").write_text(LEAKY_OP.read_text())
    op = tmp_path / "reference" / category / "some_op.py"
    op.parent.mkdir(parents=True)
    op.write_text(LEAKY_OP.read_text())
    p = build(op, examples_dir=examples)
    assert p.category == category and sorted(p.examples) == [f"{category}/first", f"{category}/second"]


def test_without_examples_the_prompt_still_works_and_says_so(tmp_path):
    p = build(LEAKY_OP, examples_dir=tmp_path)
    assert p.examples == [] and "no expert examples" in p.warnings[0]
    assert "Expert example" not in p.messages[1]["content"]


def test_templates_are_strict_and_shipped():
    with pytest.raises(jinja2.UndefinedError):
        P.render("repair.j2", stage="parse")      # `error` missing: an error, never an empty hole
    text = P.repair_prompt("check", "type error: nope\n  --> kernel.dsl:3:5")
    assert text.startswith("Your kernel parses, but the checker rejects it") and "kernel.dsl:3:5" in text
    assert '"llm/templates/*.j2"' in (REPO / "pyproject.toml").read_text()   # in the wheel too


def test_an_install_without_the_checkout_files(monkeypatch, tmp_path):
    # as in a wheel that does not carry docs/ and examples/: no reference is an error, no examples a warning
    monkeypatch.setattr(P, "_REPO", tmp_path)
    monkeypatch.setattr(P, "resources", type("R", (), {"files": staticmethod(lambda pkg: tmp_path / "pkg")}))
    assert P.examples_root() is None
    with pytest.raises(UserError, match="language reference .* is not installed"):
        P.reference_text()
    # the packaged copies are found when present
    (tmp_path / "pkg" / "data" / "docs").mkdir(parents=True)
    (tmp_path / "pkg" / "data" / "docs" / "dsl.md").write_text("# The ascendcraft tile DSL (packaged)\n")
    assert P.reference_text().startswith("# The ascendcraft tile DSL (packaged)")
    ex = tmp_path / "pkg" / "data" / "examples" / "activation" / "relu"
    ex.mkdir(parents=True)
    (ex / "kernel.dsl").write_text("kernel relu(x: gm f32[N]) -> (y: gm f32[N]):\n    store(y, relu(load(x)))\n")
    (ex / "op.py").write_text("# relu\n")
    assert P.examples_root() == tmp_path / "pkg" / "data" / "examples"
