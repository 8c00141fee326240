"""Our own response cache: one JSON file per request, keyed by a hash of the request.

litellm's built-in cache is not used: its in-memory cache crashes on the first hit without
``fastapi`` and its disk cache needs an extra. This one is a folder of small pretty JSON
files (they diff well and can be checked into a test suite for replay).

Modes: ``on`` reads and records, ``off`` neither, ``replay`` reads only and fails on a miss
(a rerun that must not reach any model). The key covers everything that shapes the answer
(model, api base, messages, temperature, seed, max tokens), never the API key.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

from ..errors import UserError

ENV_CACHE_DIR = "ASCENDCRAFT_CACHE_DIR"
ENV_CACHE_MODE = "ASCENDCRAFT_LLM_CACHE"
MODES = ("on", "off", "replay")
FORMAT = 1  # bump when the stored layout changes: old files then simply miss


def default_dir() -> Path:
    base = os.environ.get(ENV_CACHE_DIR)
    if base:
        return Path(base) / "llm"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "ascendcraft" / "llm"


def request_key(request: dict) -> str:
    blob = json.dumps({"format": FORMAT, **request}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CacheMiss(UserError):
    """Replay mode and no stored response for a request."""


class ResponseCache:
    def __init__(self, directory: Path | str | None = None, mode: str | None = None):
        mode = mode or os.environ.get(ENV_CACHE_MODE) or "on"
        if mode not in MODES:
            raise UserError(f"unknown LLM cache mode {mode!r}", hint="choose on, off or replay")
        self.mode = mode
        self.directory = Path(directory) if directory is not None else default_dir()
        self.write_errors: list[str] = []   # reported as warnings; a cache that cannot be written is not fatal

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, request: dict) -> dict | None:
        """The stored response for ``request`` ({"text", "finish_reason", "usage", "cost_usd"}) or None."""
        if self.mode == "off":
            return None
        key = request_key(request)
        try:
            entry = json.loads(self._path(key).read_text(encoding="utf-8"))
            response = entry["response"]
            if not isinstance(response.get("text"), str):
                raise ValueError("no text")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            response = None  # missing or damaged: ask the model again (and overwrite)
        if response is None and self.mode == "replay":
            raise CacheMiss(f"no cached LLM response for this request in {self.directory} (key {key[:12]}...)",
                            hint="replay mode only reads the cache: run once with --cache on to record, and keep "
                                 "the model, seed, samples and op the same")
        return response

    def put(self, request: dict, response: dict) -> None:
        if self.mode != "on":
            return
        key = request_key(request)
        entry = {"key": key, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "request": request, "response": response}
        tmp = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # written to a temporary file and renamed: a concurrent reader never sees half a file
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:12]}.", suffix=".tmp", dir=self.directory)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, indent=2, ensure_ascii=False)
                f.write("\n")
            os.replace(tmp, self._path(key))
        except OSError as e:
            # a read-only or full cache folder must not lose a paid-for answer mid-run: note it, go on
            self.write_errors.append(f"could not write the LLM cache in {self.directory}: {e.strerror or e}")
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
