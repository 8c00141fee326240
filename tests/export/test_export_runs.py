"""`export` of real gen and bench runs: one record per sample with what the run recorded (null
where it recorded nothing), levels in order, the AscendC, --pairs, bad folders, atomic output."""
import json
import os
import shutil

import pytest

import llm_replies as R
from ascendcraft.errors import UserError
from ascendcraft.export import export_runs
from ascendcraft.export.records import PAIR_FIELDS, SAMPLE_FIELDS
from ascendcraft.identity import task_hash


def rows(result):
    return [json.loads(line) for line in result.data_file.read_text().splitlines()]


def test_gen_run_one_record_per_sample(runs, tmp_path):
    r = export_runs([runs.gen], tmp_path / "ds")
    assert (r.records, r.tasks, r.verified, r.by_kind) == (2, 1, 1, {"gen": 2})
    failed, good = rows(r)
    for row in (failed, good):
        assert list(row) == [name for name, _ in SAMPLE_FIELDS]
        assert (row["kind"], row["id"], row["model"], row["chip"]) == ("gen", "generated/leaky_relu_copy",
                                                                        "scripted/coder", "910B2")
        assert row["op_path"] == str(runs.gen_op) and row["op_source"] == runs.gen_op.read_text()
        assert row["task_sha256"] == task_hash(runs.gen_op) and row["task_sha256_missing"] is None
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert "leaky_relu" in row["prompt"][1]["content"]

    # sample 1: a parse error, told back; then a wrong result, the last turn (nothing sent after it)
    assert (failed["sample"], failed["verified"], failed["died_at"]) == (1, False, "verify")
    t1, t2 = failed["turns"]
    assert (t1["turn"], t1["stage"], t1["reply"]) == (1, "parse", R.PARSE_ERROR)
    assert "kernel.dsl:1:84" in t1["error"] and t1["feedback"].startswith("Your kernel does not parse")
    assert (t2["stage"], t2["feedback"], t2["reply"]) == ("verify", None, R.MISMATCH)
    assert failed["error"] == t2["error"] and "expected" in failed["error"]
    assert failed["dsl"] is None and failed["failed_dsl"] == t2["dsl"] and "t * 0.3" in failed["failed_dsl"]
    assert failed["levels"] is failed["ascendc"] is failed["modeled"] is None

    # sample 2: verified, lowered: every level in order, the AscendC, the modeled time
    assert (good["sample"], good["verified"], good["died_at"], good["error"]) == (2, True, None, None)
    assert [t["stage"] for t in good["turns"]] == ["verified"] and good["turns"][0]["dsl"] == R.KERNEL
    assert good["dsl"] == R.KERNEL == (runs.gen / "kernel.dsl").read_text()
    files = sorted((runs.gen / "passes").glob("*.dsl"))
    assert [lv["pass"] for lv in good["levels"]] == [f.stem.split("_", 1)[1] for f in files]
    assert [lv["dsl"] for lv in good["levels"]] == [f.read_text() for f in files]
    assert good["levels"][0]["pass"] == "source" and len(good["levels"]) > 10
    (cpp,) = (runs.gen / "ascendc").glob("*.cpp")
    (header,) = (runs.gen / "ascendc").glob("*_tiling.h")
    assert good["ascendc"] == cpp.read_text() and "__aicore__" in good["ascendc"]
    assert good["tiling_header"] == header.read_text() and good["ascendc_instances"] == []
    report = json.loads((runs.gen / "report.json").read_text())["after_verify"]["modeled"]
    assert good["modeled"] == {"time_us": report["time_us"], "floor_us": report["floor_us"],
                               "efficiency": report["efficiency"], "bound": report["bound"], "eager_us": None}


def test_bench_kernels_run_has_no_conversation(runs, tmp_path):
    r = export_runs([runs.bench], tmp_path / "ds")
    by = {row["id"]: row for row in rows(r)}
    assert set(by) == {"activation/leaky_relu", "activation/leaky_wrong"} and r.by_kind == {"bench": 2}
    good, wrong = by["activation/leaky_relu"], by["activation/leaky_wrong"]
    for row in (good, wrong):
        assert row["prompt"] is row["turns"] is row["model"] is None and row["kind"] == "bench"
        assert row["task_sha256"] == task_hash(runs.reference / "activation" / f"{row['name']}.py")
    assert good["verified"] and good["dsl"] == R.KERNEL and good["failed_dsl"] is None
    assert good["levels"][0]["pass"] == "source" and good["levels"][-1]["pass"] == "deepen"
    assert "__aicore__" in good["ascendc"] and good["tiling_header"]
    result = next(json.loads(line) for line in (runs.bench / "results.jsonl").read_text().splitlines()
                  if json.loads(line)["task"] == "activation/leaky_relu")
    assert good["modeled"]["time_us"] == result["kernel_us"] > 0
    assert good["modeled"]["eager_us"] == result["eager"]["time_us"] > 0
    assert not wrong["verified"] and wrong["died_at"] == "verify" and "expected" in wrong["error"]
    assert wrong["dsl"] is None and wrong["failed_dsl"] == runs.wrong_kernel
    assert wrong["levels"] is wrong["ascendc"] is wrong["modeled"] is None


def test_bench_model_run_has_each_samples_conversation(runs, tmp_path):
    r = export_runs([runs.bench_model], tmp_path / "ds")
    wrong, good = rows(r)
    assert r.by_kind == {"bench": 2} and {wrong["id"], good["id"]} == {"activation/leaky_relu"}
    for row in (wrong, good):
        assert row["model"] == "scripted/coder" and [m["role"] for m in row["prompt"]] == ["system", "user"]
    assert (wrong["sample"], wrong["verified"], wrong["died_at"]) == (1, False, "verify")
    assert [(t["stage"], t["reply"], t["feedback"]) for t in wrong["turns"]] == [("verify", R.MISMATCH, None)]
    assert wrong["failed_dsl"] == wrong["turns"][0]["dsl"] and wrong["levels"] is None
    assert (good["sample"], good["verified"], good["dsl"]) == (2, True, R.KERNEL)
    assert good["levels"][0]["pass"] == "source" and "__aicore__" in good["ascendc"]
    assert good["modeled"]["time_us"] > 0 and good["modeled"]["eager_us"] > 0


def test_pairs_one_triple_per_verified_kernel(runs, tmp_path):
    r = export_runs([runs.gen, runs.bench], tmp_path / "ds", pairs=True)
    got = rows(r)
    assert r.pairs and r.records == 2 and r.incomplete == 0
    assert {p["id"] for p in got} == {"generated/leaky_relu_copy", "activation/leaky_relu"}
    for p in got:
        assert list(p) == [name for name, _ in PAIR_FIELDS]
        assert p["op_source"] == R.LEAKY_OP.read_text() and p["dsl"] == R.KERNEL
        assert "__aicore__" in p["ascendc"] and p["tiling_header"] and p["task_sha256"] == task_hash(R.LEAKY_OP)
    assert "# ascendcraft kernels: 2 pairs" in r.card_file.read_text()


def test_an_op_file_that_is_gone_has_no_hash(gen_without_op, tmp_path):
    r = export_runs([gen_without_op], tmp_path / "ds")
    for row in rows(r):
        assert row["task_sha256"] is None and row["op_source"] is None
        assert "is not at" in row["task_sha256_missing"] and row["op_path"] in row["task_sha256_missing"]
        assert row["id"] == "generated/leaky_relu_copy"    # the id still comes from the recorded path
    assert r.unhashed == 2 and "2 records without a task hash" in r.card_file.read_text()
    with pytest.raises(UserError, match="nothing to export"):   # no pair without the op's text
        export_runs([gen_without_op], tmp_path / "pairs", pairs=True)
    assert not (tmp_path / "pairs").exists()


def test_a_folder_of_runs_is_read_one_level_down(runs, tmp_path):
    holder = tmp_path / "kernels_out"
    holder.mkdir()
    shutil.copytree(runs.gen, holder / "leaky_relu_copy")
    shutil.copytree(runs.bench, holder / "bench")
    (holder / "notes").mkdir()                                 # neither: passed over
    r = export_runs([holder, holder / "bench"], tmp_path / "ds")     # a run named twice counts once
    assert r.records == 4 and r.by_kind == {"gen": 2, "bench": 2} and len(r.sources) == 2


@pytest.mark.parametrize("what", ["missing", "file", "empty", "lower result"])
def test_a_folder_that_is_no_run_is_a_user_error(what, runs, tmp_path):
    bad = tmp_path / "bad"
    if what == "file":
        bad.write_text("x")
    elif what != "missing":
        bad.mkdir()
    if what == "lower result":
        shutil.copytree(runs.bench / "tasks" / "activation" / "leaky_relu", bad, dirs_exist_ok=True)
    with pytest.raises(UserError) as err:
        export_runs([runs.gen, bad], tmp_path / "ds")
    assert str(bad) in err.value.message and "gen output folder" in err.value.hint
    if what == "lower result":
        assert "`lower` result" in err.value.message
    assert not (tmp_path / "ds").exists()


def test_output_is_atomic_and_never_replaced_without_force(runs, tmp_path, monkeypatch):
    out = tmp_path / "ds"
    import ascendcraft.export.card as card

    def broken(*args, **kwargs):
        raise RuntimeError("the card broke")
    monkeypatch.setattr(card, "dataset_card", broken)
    with pytest.raises(RuntimeError, match="card broke"):
        export_runs([runs.gen], out)
    assert os.listdir(tmp_path) == []                          # nothing, not even a partial folder
    monkeypatch.undo()

    first = export_runs([runs.gen], out)
    with pytest.raises(UserError, match="already exists"):
        export_runs([runs.bench], out)
    assert rows(first)[0]["kind"] == "gen"
    again = export_runs([runs.bench], out, force=True)         # an earlier export is replaced whole
    assert {row["kind"] for row in rows(again)} == {"bench"} and sorted(os.listdir(out / "data")) == ["train.jsonl"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(UserError, match="did not make"):
        export_runs([runs.gen], mine, force=True)              # a folder of the user's, never
    assert os.listdir(mine) == ["notes.txt"]


def test_parquet_without_pyarrow_is_a_user_error(runs, tmp_path):
    import importlib.util
    if importlib.util.find_spec("pyarrow") is not None:
        pytest.skip("pyarrow is installed")
    with pytest.raises(UserError, match="needs pyarrow") as err:
        export_runs([runs.gen], tmp_path / "ds", format="parquet")
    assert "pip install pyarrow" in err.value.hint and not (tmp_path / "ds").exists()


def test_parquet_holds_the_same_records(runs, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    r = export_runs([runs.gen, runs.bench], tmp_path / "ds", format="parquet")
    table = pq.read_table(r.data_file)
    assert r.data_file.name == "train.parquet" and "path: data/train.parquet" in r.card_file.read_text()
    assert table.num_rows == 4 and table.column_names == [name for name, _ in SAMPLE_FIELDS]
    assert table.to_pylist() == rows(export_runs([runs.gen, runs.bench], tmp_path / "jsonl"))


def test_the_dataset_loads_with_datasets(runs, tmp_path):
    datasets = pytest.importorskip("datasets")
    r = export_runs([runs.gen, runs.bench], tmp_path / "ds")
    d = datasets.load_dataset("json", data_files=str(r.data_file), split="train")
    assert d.num_rows == 4 and d.column_names == [name for name, _ in SAMPLE_FIELDS]
    good = next(row for row in d if row["kind"] == "gen" and row["verified"])
    assert good["levels"][0]["pass"] == "source" and good["turns"][0]["stage"] == "verified"
    # the card's front matter names the data file: the folder loads by itself too
    assert datasets.load_dataset(str(r.out))["train"].num_rows == 4


def test_docs_describe_every_field():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "training.md").read_text()
    section = doc[doc.index("## Datasets (`ascendcraft export`)"):]
    assert [name for name, _ in SAMPLE_FIELDS + PAIR_FIELDS if f"`{name}`" not in section] == []
