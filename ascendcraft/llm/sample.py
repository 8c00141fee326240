"""One sample: ask, run the stages, send the failure back, for at most ``turns`` replies; then,
with ``optimize``, up to that many more replies in which the model sees its verified kernel's
modeled speed and is asked for a faster one (the fastest verified kernel is the sample's)."""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

from .client import LLMClient, LLMError, Reply
from .prompt import optimize_prompt
from .stages import Evaluation, StageFailure


@dataclass
class Turn:
    turn: int
    stage: str                  # where the reply failed, or "verified"
    reply: Reply
    error: str | None = None    # the failure as the model was told it
    dsl: str | None = None
    ours: bool = False          # the failure is a bug of ascendcraft's (StageFailure.ours)
    time_us: float | None = None   # a verified kernel's modeled time (with --optimize)
    optimizing: bool = False    # a reply asked for a faster kernel (after one verified)

    @property
    def ok(self) -> bool:
        return self.stage == "verified"

    def to_json(self) -> dict:
        return {"turn": self.turn, "stage": self.stage, "ok": self.ok, "error": self.error, "ours": self.ours,
                "time_us": self.time_us, "optimizing": self.optimizing, **self.reply.to_json()}


@dataclass
class Sample:
    index: int                  # 1-based
    seed: int                   # the request seed (also part of the cache key)
    temperature: float
    transcript: list[dict] = field(default_factory=list)   # every message, with metadata
    turns: list[Turn] = field(default_factory=list)
    evaluation: Evaluation | None = None   # the verified kernel: the fastest one with --optimize
    best_turn: int | None = None          # the turn that wrote it
    score: float | None = None
    wall_s: float = 0.0
    internal_error: str | None = None    # a bug of ours met on the way (the sample stops)
    stopped_early: str | None = None     # the provider failed during optimisation turns (the kernel is kept)
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
                "turns": len(self.turns), "best_turn": self.best_turn, "died_at": self.died_at,
                "stages": [t.stage for t in self.turns],
                "trajectory": [{"turn": t.turn, "stage": t.stage, "time_us": t.time_us, "optimizing": t.optimizing}
                               for t in self.turns if t.optimizing or t.time_us is not None],
                **self.totals(), "wall_s": round(self.wall_s, 3), "score": self.score,
                "internal_error": self.internal_error, "stopped_by_us": self.stopped_by_us,
                "unverifiable": self.unverifiable, "history": [t.to_json() for t in self.turns]}


def run_sample(client: LLMClient, prompt: list[dict], evaluate, *, index: int, of: int, turns: int,
               temperature: float, seed: int, say: Callable[[str], None], debug: bool = False,
               optimize: int = 0, speed: Callable | None = None) -> Sample:
    """Ask until a reply verifies or ``turns`` replies failed; then, for ``optimize`` more replies,
    ask for a faster kernel. ``speed(evaluation)`` gives a verified kernel's (modeled time,
    facts as text), or (None, why not). Provider errors (LLMError) propagate, except during
    optimisation turns: the sample then ends with its kernel and ``stopped_early`` says why."""
    start = time.perf_counter()
    sample = Sample(index, seed, temperature)
    sample.transcript = [dict(m, turn=0 if m["role"] == "system" else 1) for m in prompt]
    messages = [dict(m) for m in prompt]
    where = f"sample {index}/{of}"
    best_us: float | None = None
    turn, optimizing = 0, 0

    def tell(reply, feedback: str, **meta) -> None:
        messages.extend([{"role": "assistant", "content": reply.text}, {"role": "user", "content": feedback}])
        sample.transcript.append({"role": "user", "content": feedback, "turn": turn + 1, **meta})

    try:
        while True:
            if sample.verified:
                if optimizing >= optimize:
                    break
                optimizing += 1
                label = f"{where}, optimisation {optimizing}/{optimize}"
            elif turn >= turns:
                break
            else:
                label = f"{where}, turn {turn + 1}/{turns}"
            turn += 1
            say(f"{label}: asking {client.config.model}")
            try:
                reply = client.complete(messages, temperature=temperature, seed=seed)
            except LLMError as err:
                if not sample.verified:
                    raise
                sample.stopped_early = err.message   # a provider failure never costs the verified kernel
                break
            sample.transcript.append({"role": "assistant", "content": reply.text, "turn": turn, **reply.to_json()})
            asked_faster = sample.verified
            try:
                evaluation = evaluate(reply)
            except StageFailure as fail:
                sample.turns.append(Turn(turn, fail.stage, reply, fail.error, fail.dsl, fail.ours,
                                         optimizing=asked_faster))
                if fail.final:
                    sample.unverifiable = fail.error
                    say(f"{label}: the op cannot verify any kernel ({fail.error.splitlines()[0]}); this sample stops")
                    break
                say(f"{label}: failed at {fail.stage}: {fail.error.splitlines()[0]}")
                more = optimizing < optimize if asked_faster else turn < turns
                if more:
                    feedback = fail.feedback
                    if asked_faster:
                        feedback += (f"\nYour fastest verified kernel so far (turn {sample.best_turn}"
                                     f"{f', {best_us:,.1f} µs' if best_us is not None else ''}) is kept; fix this "
                                     "one or try another way to make it faster.\n")
                    tell(reply, feedback, feedback_on=fail.stage)
                continue
            except Exception as err:  # noqa: BLE001 - a bug of ours, not the model's: stop this sample
                if debug:
                    raise
                stage = getattr(evaluate, "stage", "check")
                sample.internal_error = f"{type(err).__name__}: {err}"
                sample.turns.append(Turn(turn, stage, reply, "internal error: " + sample.internal_error, ours=True,
                                         optimizing=asked_faster))
                sample.transcript.append({"role": "ascendcraft", "turn": turn, "internal_error": sample.internal_error,
                                          "traceback": traceback.format_exc()})
                say(f"{label}: internal error at {stage} ({sample.internal_error}); "
                    "this sample stops (rerun with --debug for the traceback)")
                break
            time_us, facts = speed(evaluation) if speed is not None and optimize else (None, None)
            unchanged = asked_faster and evaluation.dsl.strip() == sample.evaluation.dsl.strip()
            faster = not asked_faster or (time_us is not None and (best_us is None or time_us < best_us))
            sample.turns.append(Turn(turn, "verified", reply, dsl=evaluation.dsl, time_us=time_us,
                                     optimizing=asked_faster))
            previous = best_us
            if faster:
                sample.evaluation, sample.best_turn, best_us = evaluation, turn, time_us
            timing = f" ({time_us:,.1f} µs modeled)" if time_us is not None else ""
            say(f"{label}: verified{timing}" + ("" if not asked_faster else ", the fastest so far" if faster
                                                else f", not faster than turn {sample.best_turn}'s"))
            if unchanged:
                say(f"{label}: the model sent its kernel unchanged; optimisation stops")
                break
            if optimizing < optimize:
                if time_us is None:   # nothing to show the model: asking again would be a blind guess
                    say(f"{label}: no modeled time ({facts}); optimisation stops")
                    break
                tell(reply, optimize_prompt(facts, faster=faster, first=not asked_faster, best_turn=sample.best_turn,
                                            best_us=best_us, previous_us=previous,
                                            history=_history(sample)),
                     feedback_on="speed")
    finally:
        sample.wall_s = time.perf_counter() - start
    return sample


def _history(sample: Sample) -> list[tuple[int, float, bool]]:
    """(turn, modeled µs, is the fastest) of each verified turn so far."""
    return [(t.turn, t.time_us, t.turn == sample.best_turn) for t in sample.turns if t.time_us is not None]
