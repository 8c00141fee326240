"""The leakage filter: by id, by content hash (a renamed copy is still caught), and by a folder of
tasks (ids and hashes of every task in it); the counts in the result and on the card."""
import json

import pytest

import llm_replies as R
from ascendcraft.bench.tasks import find_tasks
from ascendcraft.errors import UserError
from ascendcraft.export import export_runs
from ascendcraft.export.leakage import BY_HASH, BY_ID, TASKS_BY_HASH, TASKS_BY_ID
from ascendcraft.identity import task_hash


def kept_ids(result):
    return sorted(json.loads(line)["id"] + f"#{json.loads(line)['sample']}"
                  for line in result.data_file.read_text().splitlines())


def test_by_id_removes_only_that_task(runs, tmp_path):
    r = export_runs([runs.gen, runs.bench], tmp_path / "ds", exclude_ids=["activation/leaky_relu"])
    assert r.excluded == {BY_ID: 1} and r.read == 4
    assert kept_ids(r) == ["activation/leaky_wrong#1", "generated/leaky_relu_copy#1", "generated/leaky_relu_copy#2"]
    card = r.card_file.read_text()
    assert "| `--exclude-id` | 1 |" in card and "`activation/leaky_relu`" in card and "| **total** | 1 |" in card


def test_by_hash_removes_renamed_copies(runs, tmp_path):
    # the gen run's op is the bench task's op under another name: one hash removes both
    sha = task_hash(runs.reference / "activation" / "leaky_relu.py")
    r = export_runs([runs.gen, runs.bench], tmp_path / "ds", exclude_hashes=[sha.upper()])
    assert r.excluded == {BY_HASH: 3} and kept_ids(r) == ["activation/leaky_wrong#1"]
    assert f"| `{BY_HASH}` | 3 |" in r.card_file.read_text()


def test_benchmark_tasks_are_removed_by_id_and_by_hash(runs, tmp_path):
    op = runs.reference / "activation" / "leaky_relu.py"
    r = export_runs([runs.gen, runs.bench], tmp_path / "ds", exclude_tasks=[op])
    # the bench record by its id; the gen run's renamed copy by its hash
    assert r.excluded == {TASKS_BY_ID: 1, TASKS_BY_HASH: 2} and kept_ids(r) == ["activation/leaky_wrong#1"]
    card = r.card_file.read_text()
    assert f"`--exclude-tasks {op}`" in card and "| **total** | 3 |" in card
    # the whole folder: every task in it
    assert "nothing to export: 2 read, 2 removed" in _refused(runs, tmp_path, exclude_tasks=[runs.reference])


def test_a_renamed_op_file_is_caught_by_hash(runs, tmp_path):
    mkb = tmp_path / "MultiKernelBench" / "reference" / "activation"
    mkb.mkdir(parents=True)
    (mkb / "19_LeakyReLU.py").write_text(R.LEAKY_OP.read_text())        # another name, the same task
    r = export_runs([runs.gen, runs.bench], tmp_path / "ds", exclude_tasks=[mkb.parent])
    assert r.excluded == {TASKS_BY_HASH: 3} and kept_ids(r) == ["activation/leaky_wrong#1"]
    # what docs/training.md shows: no benchmark task in the set, by id or by hash
    bench = find_tasks([str(mkb.parent)])
    ids, hashes = {t.id for t in bench}, {task_hash(t.op) for t in bench}
    for line in r.data_file.read_text().splitlines():
        row = json.loads(line)
        assert row["id"] not in ids and row["task_sha256"] not in hashes


def _refused(runs, tmp_path, **filters) -> str:
    with pytest.raises(UserError) as err:
        export_runs([runs.bench], tmp_path / "refused", **filters)
    assert not (tmp_path / "refused").exists()
    return err.value.message


@pytest.mark.parametrize("filters,words", [
    ({"exclude_ids": ["leaky_relu"]}, "is not a task id"),
    ({"exclude_hashes": ["abc123"]}, "is not a sha256"),
    ({"exclude_tasks": ["no/such/reference"]}, "--exclude-tasks no/such/reference: no such op file or folder"),
])
def test_bad_filter_arguments_are_user_errors(runs, tmp_path, filters, words):
    assert words in _refused(runs, tmp_path, **filters)
