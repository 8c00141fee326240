"""How a reply's outcome becomes one number (docs/training.md, "The reward's shape").

A reply that fails gets the credit of the stage it failed at, so a policy is pulled toward
replies that get further; a correct kernel gets ``correct`` plus a speed term, and the speed
term is bounded so that every correct kernel outranks every failed one.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

#: The stages of a reply, in order; the last one passed is where a correct reply ends.
STAGES = ("extract", "parse", "check", "verify", "lower", "compile", "correct")

#: Credit for a reply that failed at each stage (a reply that fails at ``correct`` built and ran,
#: but its AscendC kernel's outputs were wrong).
DEFAULT_FAILED_AT = {"extract": 0.0, "parse": 0.05, "check": 0.1, "verify": 0.2, "lower": 0.3,
                     "compile": 0.35, "correct": 0.4}


@dataclass(frozen=True)
class Shaping:
    """``failed_at[stage]`` for a failed reply; ``correct + speed_weight * clip(log2(speedup),
    -speed_clip, speed_clip)`` for a correct one, speedup being modeled eager over the kernel's
    modeled time (the speed term is 0 when either is missing, e.g. without lowering)."""
    failed_at: dict = field(default_factory=lambda: dict(DEFAULT_FAILED_AT))
    correct: float = 1.0
    speed_weight: float = 0.5
    speed_clip: float = 1.0

    def __post_init__(self):
        unknown = sorted(set(self.failed_at) - set(STAGES))
        if unknown:
            raise ValueError(f"failed_at names unknown stages {unknown}; the stages are {', '.join(STAGES)}")
        object.__setattr__(self, "failed_at", {**DEFAULT_FAILED_AT, **self.failed_at})
        for name in ("correct", "speed_weight", "speed_clip"):
            if not math.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be a finite number")
        if self.speed_clip < 0 or self.speed_weight < 0:
            raise ValueError("speed_weight and speed_clip must not be negative")

    def reward(self, stage: str, correct: bool, speedup: float | None) -> float:
        if not correct:
            return float(self.failed_at[stage])
        if speedup is None or not speedup > 0 or not math.isfinite(speedup):
            return float(self.correct)
        term = max(-self.speed_clip, min(self.speed_clip, math.log2(speedup)))
        return float(self.correct + self.speed_weight * term)

    def to_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, doc: dict) -> "Shaping":
        """A shaping from a JSON object holding any of its fields (the others keep their defaults)."""
        if not isinstance(doc, dict):
            raise ValueError("a shaping is a JSON object: {\"failed_at\": {...}, \"correct\": 1.0, ...}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(doc) - names)
        if unknown:
            raise ValueError(f"unknown shaping fields {unknown}; the fields are {', '.join(sorted(names))}")
        if "failed_at" in doc and not isinstance(doc["failed_at"], dict):
            raise ValueError("failed_at is an object mapping a stage to its credit")
        try:
            values = {k: (dict((s, float(v)) for s, v in doc[k].items()) if k == "failed_at" else float(doc[k]))
                      for k in doc}
        except (TypeError, ValueError):
            raise ValueError("every shaping value is a number") from None
        return cls(**values)
