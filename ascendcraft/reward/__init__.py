"""Rewards for reinforcement learning on kernel generation (docs/training.md).

::

    from ascendcraft.reward import reward, rewards
    r = reward("examples/activation/softmax/op.py", model_reply)        # one reply, in this process
    r.stage, r.correct, r.reward, r.error, r.speedup
    rs = rewards([(task, reply), ...], workers=8, time_limit=120)       # a batch, in worker processes

A reply is the model's whole answer: its last ```dsl block (as ``gen`` reads it) is the kernel.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..errors import UserError
from .adapters import trl_reward, verl_compute_score
from .pool import DEFAULT_TIME_LIMIT, RewardPool
from .score import RewardResult, RewardSettings, score_reply
from .shaping import STAGES, Shaping
from .tasks import TaskResolver

__all__ = ["reward", "rewards", "trl_reward", "verl_compute_score", "RewardPool", "RewardResult", "RewardSettings", "Shaping", "STAGES",
           "DEFAULT_TIME_LIMIT"]


def reward(task: str | Path, completion: str, *, settings: RewardSettings | None = None,
           task_roots: list[str | Path] | None = None) -> RewardResult:
    """Score one reply in this process (no time limit: use :func:`rewards` for untrusted batches).
    ``task``: an op file, an NPUKernelBench task folder, or a task id under ``task_roots``."""
    path = TaskResolver(task_roots)(task)
    return score_reply(path, completion, settings or RewardSettings(), label=str(task))


def rewards(items: Iterable[tuple[str | Path, str]], *, settings: RewardSettings | None = None,
            workers: int | None = None, time_limit: float = DEFAULT_TIME_LIMIT,
            task_roots: list[str | Path] | None = None) -> list[RewardResult]:
    """Score ``(task, completion)`` pairs in ``workers`` processes (default: one per core), each
    within ``time_limit`` seconds; the results in the pairs' order. ``workers=0`` scores them
    one by one in this process, without the time limit."""
    items = list(items)
    for i, (_, completion) in enumerate(items):
        if not isinstance(completion, str):
            raise UserError(f"completion {i} is {type(completion).__name__}, not the model's reply as text")
    resolve = TaskResolver(task_roots)
    paths = [resolve(t) for t, _ in items]
    labels = [str(t) for t, _ in items]
    settings = settings or RewardSettings()
    if workers == 0:
        return [score_reply(p, c, settings, label=lab) for p, (_, c), lab in zip(paths, items, labels)]
    with RewardPool(settings, workers=workers, time_limit=time_limit) as pool:
        return pool.score([(p, c) for p, (_, c) in zip(paths, items)], labels=labels)
