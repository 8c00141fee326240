"""Records of a gen output folder (``kernels_out/<op>/``, docs/generation.md "Output"): one per
sample, its conversation from ``llm/sample_NN.jsonl`` and its turns' outcomes from report.json.
Only the chosen sample's kernel was lowered and kept (``kernel.dsl``, ``passes/``, ``ascendc/``);
another verified sample's kernel is the one its kept turn's reply holds, extracted as gen did."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import UserError
from ..llm.extract import extract_dsl
from .artifacts import read_lowering, read_text, task_source
from .records import Modeled, SampleRecord, TaskSource, Turn


def load_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise UserError(f"cannot read {path}: {err}", hint="export reads the folders gen and bench wrote, "
                        "as they wrote them") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} is not a JSON object", hint="export reads the report.json gen writes")
    return data


def is_gen_report(report: dict) -> bool:
    return isinstance(report.get("op"), dict) and isinstance(report.get("samples"), list)


def is_gen_folder(folder: Path) -> bool:
    if not ((folder / "report.json").is_file() and (folder / "llm").is_dir()):
        return False
    try:
        return is_gen_report(json.loads((folder / "report.json").read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError):
        return False


def gen_records(folder: Path, *, run: str, task: TaskSource | None = None) -> list[SampleRecord]:
    """One record per sample of the gen run in ``folder``; ``task`` when the caller knows it
    better than the report's op path (a bench task's id)."""
    report = load_json(folder / "report.json")
    if not is_gen_report(report):
        raise UserError(f"{folder / 'report.json'} is not a gen report (no op or samples)")
    task = task or task_source(report["op"]["path"])
    chosen = (report.get("chosen") or {}).get("sample")
    model = (report.get("model") or {}).get("model")
    chip = (report.get("settings") or {}).get("chip")
    records = []
    for s in report["samples"]:
        index = s["sample"]
        history = s.get("history") or []
        messages = _transcript(folder / "llm" / f"sample_{index:02d}.jsonl")
        prompt, turns = _conversation(messages, history)
        verified = bool(s.get("verified"))
        kept = verified and index == chosen        # the one kernel whose lowering the folder holds
        dsl = None
        if kept:
            dsl = read_text(folder / "kernel.dsl")
        elif verified:
            dsl = _kept_turn_dsl(turns, s.get("best_turn"))
        after = report.get("after_verify") or {}
        records.append(SampleRecord(
            kind="gen", task=task, run=run, model=model, sample=index, chip=chip, prompt=prompt, turns=turns,
            verified=verified, died_at=None if verified else s.get("died_at"),
            error=None if verified or not history else history[-1].get("error"),
            dsl=dsl, failed_dsl=None if verified else read_text(folder / "llm" / f"sample_{index:02d}.last.dsl"),
            lowering=read_lowering(folder) if kept else None,
            modeled=modeled_of(after.get("modeled")) if kept else None))
    return records


def modeled_of(modeled: dict | None, eager_us: float | None = None) -> Modeled | None:
    """A report's ``modeled`` section (``Lowered.to_json``) as a record's."""
    if not modeled:
        return None
    return Modeled(modeled.get("time_us"), modeled.get("floor_us"), modeled.get("efficiency"),
                   modeled.get("bound"), eager_us)


def _transcript(path: Path) -> list[dict] | None:
    if not path.is_file():
        return None
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            raise UserError(f"{path}:{n} is not a JSON line", hint="the transcript was changed or cut after gen "
                            "wrote it; export reads the files as gen writes them") from None
    return out


def _conversation(messages: list[dict] | None, history: list[dict]) -> tuple[tuple | None, tuple | None]:
    """(the first messages, the turns): each turn's outcome from the report's history, its reply
    and the feedback sent after it from the transcript (None where the transcript is missing)."""
    replies: dict[int, str] = {}
    feedback: dict[int, str] = {}
    prompt = None
    if messages is not None:
        prompt, seen_reply = [], False
        for m in messages:
            role = m.get("role")
            if role == "assistant":
                seen_reply = True
                replies[m.get("turn")] = m.get("content")
            elif role == "user" and "feedback_on" in m:
                feedback[m.get("turn", 0) - 1] = m.get("content")     # sent after the previous turn's reply
            elif role in ("system", "user") and not seen_reply:
                prompt.append({"role": role, "content": m.get("content")})
        prompt = tuple(prompt)
    turns = tuple(Turn(turn=h["turn"], reply=replies.get(h["turn"]),
                       dsl=extract_dsl(replies[h["turn"]]) if replies.get(h["turn"]) else None,
                       stage=h.get("stage"), error=h.get("error"), feedback=feedback.get(h["turn"]),
                       ours=bool(h.get("ours")), optimizing=bool(h.get("optimizing")), time_us=h.get("time_us"))
                  for h in history)
    return prompt, (turns if messages is not None or turns else None)


def _kept_turn_dsl(turns: tuple[Turn, ...] | None, best_turn: int | None) -> str | None:
    verified = [t for t in turns or () if t.stage == "verified"]
    kept = next((t for t in verified if t.turn == best_turn), verified[-1] if verified else None)
    return kept.dsl if kept is not None else None
