"""The reward in the calling conventions of RL libraries; none of them is imported here.

* TRL (``GRPOTrainer(reward_funcs=[...])``): ``f(prompts, completions, **columns) -> list[float]``,
  the dataset's other columns passed by name, so the task comes from a column (``task`` by
  default); completions are text or conversations (a list of ``{"role", "content"}`` messages).
* verl (``custom_reward_function``): ``compute_score(data_source, solution_str, ground_truth,
  extra_info=None) -> float``, the task in ``ground_truth``.

Both keep one :class:`~ascendcraft.reward.RewardPool` for the whole training run, so every
worker's loaded tasks, references and builds stay warm between batches.
"""
from __future__ import annotations

import atexit
from pathlib import Path
from typing import Callable

from ..errors import UserError
from .pool import DEFAULT_TIME_LIMIT, RewardPool
from .score import RewardSettings
from .tasks import TaskResolver


def completion_text(completion) -> str:
    """The reply's text: a string as it is; a conversation's last assistant message."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, (list, tuple)):
        said = [m.get("content") for m in completion if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
        if said and isinstance(said[-1], str):
            return said[-1]
    raise UserError(f"a completion is text or a list of chat messages, not {type(completion).__name__}")


class _Scorer:
    """A pool made on first use and closed at exit."""

    def __init__(self, settings, workers, time_limit, task_roots):
        self.settings, self.workers, self.time_limit = settings or RewardSettings(), workers, time_limit
        self.resolve = TaskResolver(task_roots)
        self.pool: RewardPool | None = None

    def __call__(self, tasks: list, texts: list[str]):
        if self.pool is None:
            self.pool = RewardPool(self.settings, workers=self.workers, time_limit=self.time_limit)
            atexit.register(self.close)
        return self.pool.score([(self.resolve(t), c) for t, c in zip(tasks, texts)], labels=[str(t) for t in tasks])

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None


def trl_reward(*, task_column: str = "task", settings: RewardSettings | None = None, workers: int | None = None,
               time_limit: float = DEFAULT_TIME_LIMIT, task_roots: list[str | Path] | None = None,
               on_error: float | None = None) -> Callable:
    """A TRL reward function. ``on_error``: the value for a reply whose reward is None (our own
    internal error or a task that fails; TRL skips None where it supports it)."""
    scorer = _Scorer(settings, workers, time_limit, task_roots)

    def ascendcraft_reward(prompts=None, completions=None, **columns) -> list:
        if completions is None:
            raise UserError("the reward needs the completions (TRL passes them as completions=...)")
        if task_column not in columns:
            raise UserError(f"the dataset has no {task_column!r} column naming each prompt's task",
                            hint=f"add one (an op file's path or a task id), or pass task_column= to trl_reward; "
                                 f"columns passed: {', '.join(sorted(columns)) or 'none'}")
        results = scorer(list(columns[task_column]), [completion_text(c) for c in completions])
        return [r.reward if r.reward is not None else on_error for r in results]

    ascendcraft_reward.close = scorer.close
    return ascendcraft_reward


_VERL: dict = {}


def verl_compute_score(data_source, solution_str, ground_truth, extra_info=None) -> float:
    """verl's ``compute_score``: ``ground_truth`` names the task (an op file or a task id). The
    default settings; an internal error or a failing task scores 0.0."""
    scorer = _VERL.setdefault("scorer", _Scorer(None, 1, DEFAULT_TIME_LIMIT, None))
    result = scorer([ground_truth], [completion_text(solution_str)])[0]
    return result.reward if result.reward is not None else 0.0
