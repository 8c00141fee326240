"""One sample: ask, run the stages, send the failure back, for at most ``turns`` replies."""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

from .client import LLMClient, Reply
from .stages import Evaluation, StageFailure


@dataclass
class Turn:
    turn: int
    stage: str                  # where the reply failed, or "verified"
    reply: Reply
    error: str | None = None    # the failure as the model was told it
    dsl: str | None = None
    ours: bool = False          # the failure is a bug of ascendcraft's (StageFailure.ours)

    @property
    def ok(self) -> bool:
        return self.stage == "verified"

    def to_json(self) -> dict:
        return {"turn": self.turn, "stage": self.stage, "ok": self.ok, "error": self.error, "ours": self.ours,
                **self.reply.to_json()}


@dataclass
class Sample:
    index: int                  # 1-based
    seed: int                   # the request seed (also part of the cache key)
    temperature: float
    transcript: list[dict] = field(default_factory=list)   # every message, with metadata
    turns: list[Turn] = field(default_factory=list)
    evaluation: Evaluation | None = None
    score: float | None = None
    wall_s: float = 0.0
    internal_error: str | None = None    # a bug of ours met on the way (the sample stops)
    unverifiable: str | None = None      # the task cannot verify any kernel (the sample stops at once)

    @property
    def verified(self) -> bool:
        return self.evaluation is not None

    @property
    def died_at(self) -> str | None:
        """The stage where the last reply failed (None when verified or never answered)."""
        if self.verified or not self.turns:
            return None
        return self.turns[-1].stage

    @property
    def stopped_by_us(self) -> bool:
        """The sample's last failure is a bug of ascendcraft's (an internal error, or one it recognises)."""
        return not self.verified and bool(self.turns) and (self.internal_error is not None or self.turns[-1].ours)

    @property
    def last_dsl(self) -> str | None:
        return next((t.dsl for t in reversed(self.turns) if t.dsl), None)

    def totals(self) -> dict:
        replies = [t.reply for t in self.turns]
        live = [r for r in replies if not r.cached]
        costs = [r.cost_usd for r in live]
        return {"tokens_in": sum(r.prompt_tokens or 0 for r in replies),
                "tokens_out": sum(r.completion_tokens or 0 for r in replies),
                "cost_usd": None if any(c is None for c in costs) and live else round(sum(c or 0 for c in costs), 6),
                "cached_replies": len(replies) - len(live)}

    def to_json(self) -> dict:
        return {"sample": self.index, "seed": self.seed, "temperature": self.temperature, "verified": self.verified,
                "turns": len(self.turns), "died_at": self.died_at, "stages": [t.stage for t in self.turns],
                **self.totals(), "wall_s": round(self.wall_s, 3), "score": self.score,
                "internal_error": self.internal_error, "stopped_by_us": self.stopped_by_us,
                "unverifiable": self.unverifiable, "history": [t.to_json() for t in self.turns]}


def run_sample(client: LLMClient, prompt: list[dict], evaluate, *, index: int, of: int, turns: int,
               temperature: float, seed: int, say: Callable[[str], None], debug: bool = False) -> Sample:
    """Ask until a reply verifies or ``turns`` replies failed. Provider errors (LLMError) propagate."""
    start = time.perf_counter()
    sample = Sample(index, seed, temperature)
    sample.transcript = [dict(m, turn=0 if m["role"] == "system" else 1) for m in prompt]
    messages = [dict(m) for m in prompt]
    where = f"sample {index}/{of}"
    try:
        for turn in range(1, turns + 1):
            say(f"{where}, turn {turn}/{turns}: asking {client.config.model}")
            reply = client.complete(messages, temperature=temperature, seed=seed)
            sample.transcript.append({"role": "assistant", "content": reply.text, "turn": turn, **reply.to_json()})
            try:
                sample.evaluation = evaluate(reply)
            except StageFailure as fail:
                sample.turns.append(Turn(turn, fail.stage, reply, fail.error, fail.dsl, fail.ours))
                if fail.final:
                    sample.unverifiable = fail.error
                    say(f"{where}, turn {turn}/{turns}: the op cannot verify any kernel ({fail.error.splitlines()[0]}); "
                        "this sample stops")
                    break
                say(f"{where}, turn {turn}/{turns}: failed at {fail.stage}: {fail.error.splitlines()[0]}")
                if turn < turns:
                    messages += [{"role": "assistant", "content": reply.text},
                                 {"role": "user", "content": fail.feedback}]
                    sample.transcript.append({"role": "user", "content": fail.feedback, "turn": turn + 1,
                                              "feedback_on": fail.stage})
                continue
            except Exception as err:  # noqa: BLE001 - a bug of ours, not the model's: stop this sample
                if debug:
                    raise
                stage = getattr(evaluate, "stage", "check")
                sample.internal_error = f"{type(err).__name__}: {err}"
                sample.turns.append(Turn(turn, stage, reply, "internal error: " + sample.internal_error, ours=True))
                sample.transcript.append({"role": "ascendcraft", "turn": turn, "internal_error": sample.internal_error,
                                          "traceback": traceback.format_exc()})
                say(f"{where}, turn {turn}/{turns}: internal error at {stage} ({sample.internal_error}); "
                    "this sample stops (rerun with --debug for the traceback)")
                break
            sample.turns.append(Turn(turn, "verified", reply, dsl=sample.evaluation.dsl))
            say(f"{where}, turn {turn}/{turns}: verified")
            break
    finally:
        sample.wall_s = time.perf_counter() - start
    return sample
