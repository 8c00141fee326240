"""`export --examples`: the bundled examples lowered now, each a record of kind `example`; one that
does not lower is reported and skipped."""
import json
import shutil
from pathlib import Path

import pytest

from ascendcraft.errors import UserError
from ascendcraft.export import export_examples
from ascendcraft.identity import task_hash

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LEAKY = EXAMPLES / "activation" / "leaky_relu"


def test_one_example_with_every_level_and_its_ascendc(tmp_path):
    r = export_examples(tmp_path / "seed", only=["activation/leaky_relu"])
    (row,) = [json.loads(line) for line in r.data_file.read_text().splitlines()]
    assert (row["kind"], row["id"], row["verified"], row["sample"]) == ("example", "activation/leaky_relu", True, 1)
    assert row["op_path"] == "examples/activation/leaky_relu/op.py"          # not this machine's path
    assert row["task_sha256"] == task_hash(LEAKY / "op.py") and row["op_source"] == (LEAKY / "op.py").read_text()
    assert row["dsl"] == (LEAKY / "kernel.dsl").read_text()
    assert row["prompt"] is row["turns"] is row["run"] is row["model"] is None
    passes = [lv["pass"] for lv in row["levels"]]
    assert passes[0] == "source" and passes[-1] == "deepen" and "select" in passes and len(passes) > 10
    assert "__aicore__" in row["ascendc"] and row["tiling_header"] and row["ascendc_instances"] == []
    assert row["modeled"]["time_us"] > 0 and row["modeled"]["floor_us"] > 0 and row["modeled"]["eager_us"] is None
    assert "export_examples" in r.card_file.read_text() and r.failures == ()


def test_an_example_that_does_not_lower_is_skipped(tmp_path, monkeypatch):
    root = tmp_path / "examples"
    shutil.copytree(LEAKY, root / "activation" / "leaky_relu")
    broken = root / "activation" / "leaky_broken"
    shutil.copytree(LEAKY, broken)
    (broken / "kernel.dsl").write_text((LEAKY / "kernel.dsl").read_text().replace("-> (y", "(y"))
    monkeypatch.setattr("ascendcraft.llm.prompt.examples_root", lambda: root)
    r = export_examples(tmp_path / "seed", only=["activation/"], exclude_ids=["activation/nothing"])
    assert r.records == 1 and r.read == 2 and [f.id for f in r.failures] == ["activation/leaky_broken"]
    assert "syntax error" in r.failures[0].error
    assert "`activation/leaky_broken`" in r.card_file.read_text()
    # excluded examples are not lowered at all; nothing left is an error, and nothing is written
    with pytest.raises(UserError, match="nothing to export: 2 read, 1 removed by the leakage filter, 1 did not"):
        export_examples(tmp_path / "none", exclude_ids=["activation/leaky_relu"])
    assert not (tmp_path / "none").exists()


def test_only_must_name_an_example(tmp_path):
    with pytest.raises(UserError, match="no example id holds 'no_such_op'"):
        export_examples(tmp_path / "seed", only=["no_such_op"])
