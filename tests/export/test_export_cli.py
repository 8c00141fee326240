"""`ascendcraft export` on the command line: a thin layer over the API, its summary, --json, and
its refusals (exit 2, one message, nothing written)."""
import json

import pytest

from ascendcraft.cli import main


def test_summary_names_what_each_filter_removed(runs, tmp_path, capsys):
    out = tmp_path / "ds"
    code = main(["export", str(runs.gen), str(runs.bench), "--out", str(out), "--exclude-id", "activation/leaky_relu",
                 "--exclude-tasks", str(runs.reference / "activation" / "leaky_wrong.py")])
    text = capsys.readouterr().out
    assert code == 0
    assert "exported 2 records of 1 task (2 gen; 1 verified) from 4 read: 2 removed by the leakage filter " \
           "(--exclude-id 1, --exclude-tasks (by id) 1, --exclude-tasks (by hash) 0)" in text
    assert f"wrote {out}/ (data/train.jsonl, README.md)" in text
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n"
                           "    path: data/train.jsonl\n")
    assert f"- command: `ascendcraft export {runs.gen} {runs.bench} --out {out} --exclude-id activation/leaky_relu " \
           f"--exclude-tasks {runs.reference / 'activation' / 'leaky_wrong.py'}`" in card
    assert "- ascendcraft 0.1.0, " in card


def test_json_and_pairs(runs, tmp_path, capsys):
    assert main(["export", str(runs.gen), str(runs.bench), "--out", str(tmp_path / "p"), "--pairs", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["command"], doc["status"], doc["exit_code"]) == ("export", "done", 0)
    got = doc["result"]
    assert got["pairs"] and got["records"] == 2 and got["read"] == 4 and got["excluded"] == {}
    assert got["data_file"] == str(tmp_path / "p" / "data" / "train.jsonl")


def test_examples_report_progress_per_example(tmp_path, capsys):
    assert main(["export", "--examples", "--only", "activation/leaky_relu", "--out", str(tmp_path / "s"), "-v"]) == 0
    out, err = capsys.readouterr()
    assert "[1/1] activation/leaky_relu: lowered, 16 levels" in err
    assert "exported 1 record of 1 task (1 example; 1 verified)" in out


@pytest.mark.parametrize("argv,words", [
    (["export", "--out", "o"], "nothing to export"),
    (["export", "RUN", "--examples", "--out", "o"], "RUN_DIR and --examples are exclusive"),
    (["export", "RUN", "--only", "softmax", "--out", "o"], "--only only go with --examples"),
    (["export", "no_such_run", "--out", "o"], "no such run folder: no_such_run"),
    (["export", "--examples", "--trials", "0", "--out", "o"], "argument --trials: 0 is out of range"),
])
def test_refusals_are_exit_2(tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and "internal error" not in err
    assert not (tmp_path / "o").exists()
