"""Which model to ask and where: a flag, else an environment variable, else a config file.

Config files are TOML with an ``[llm]`` table. The first file found is used, whole:
``$ASCENDCRAFT_CONFIG`` when set, else ``./ascendcraft.toml``, else
``$XDG_CONFIG_HOME/ascendcraft/config.toml`` (``~/.config/...``). API keys are never read
from files: litellm takes them from the provider's own variable (``OPENAI_API_KEY``, ...).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError

ENV_MODEL = "ASCENDCRAFT_MODEL"
ENV_API_BASE = "ASCENDCRAFT_API_BASE"
ENV_CONFIG = "ASCENDCRAFT_CONFIG"

DEFAULT_TIMEOUT_S = 300.0   # one reply; long enough for a slow local model writing a kernel
DEFAULT_RETRIES = 3         # extra attempts after a transient failure (rate limit, timeout, 5xx)
DEFAULT_BACKOFF_S = 2.0     # first wait; doubles per retry

# key -> accepted Python types in the [llm] table
_KEYS = {"model": (str,), "api_base": (str,), "timeout": (int, float), "max_tokens": (int,),
         "retries": (int,), "backoff": (int, float)}

MODEL_EXAMPLES = (("openai/gpt-4o", "OPENAI_API_KEY"), ("anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
                  ("hosted_vllm/NAME --api-base URL", "vLLM, SGLang, llama.cpp: http://HOST:8000/v1"),
                  ("openai/NAME --api-base URL", "any OpenAI-compatible server"),
                  ("ollama_chat/NAME", "Ollama on localhost:11434 (no key)"))


@dataclass(frozen=True)
class ModelConfig:
    model: str
    api_base: str | None = None
    timeout: float = DEFAULT_TIMEOUT_S
    max_tokens: int | None = None
    retries: int = DEFAULT_RETRIES
    backoff: float = DEFAULT_BACKOFF_S
    source: str = "--model"     # where the model string came from, for reports

    def to_json(self) -> dict:
        return {"model": self.model, "api_base": self.api_base, "source": self.source, "timeout_s": self.timeout,
                "max_tokens": self.max_tokens, "retries": self.retries}


def config_files() -> list[Path]:
    """The files looked at, in order (the first that exists is used)."""
    if os.environ.get(ENV_CONFIG):
        return [Path(os.environ[ENV_CONFIG])]
    home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return [Path.cwd() / "ascendcraft.toml", home / "ascendcraft" / "config.toml"]


def _toml():
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib
        except ImportError:
            raise UserError("reading a config file needs Python 3.11 or the `tomli` package",
                            hint=f"pip install tomli, or use --model / {ENV_MODEL}") from None
    return tomllib


def read_config(path: Path) -> dict:
    """The ``[llm]`` table of one config file, validated."""
    try:
        data = _toml().loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise UserError(f"cannot read config file {path}: {e.strerror or e}") from None
    except ValueError as e:  # tomllib.TOMLDecodeError
        raise UserError(f"config file {path} is not valid TOML: {e}") from None
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise UserError(f"`llm` in config file {path} must be a table ([llm])")
    for key, value in table.items():
        if key in ("api_key", "key") or key.endswith("_api_key"):
            raise UserError(f"config file {path} holds an API key under [llm] {key}; keys are never read from files",
                            hint="set the provider's environment variable instead (OPENAI_API_KEY, "
                                 "ANTHROPIC_API_KEY, ...) and remove the key from the file")
        if key not in _KEYS:
            raise UserError(f"unknown key `{key}` under [llm] in config file {path}",
                            hint="known keys: " + ", ".join(_KEYS))
        if isinstance(value, bool) or not isinstance(value, _KEYS[key]):
            raise UserError(f"[llm] {key} in config file {path} must be a "
                            f"{' or '.join(t.__name__ for t in _KEYS[key])}, not {value!r}")
    return table


def _found_config() -> tuple[dict, Path | None]:
    for path in config_files():
        if path.is_file():
            return read_config(path), path
    if os.environ.get(ENV_CONFIG):
        raise UserError(f"{ENV_CONFIG} points to {os.environ[ENV_CONFIG]}, which does not exist")
    return {}, None


class NoModelConfigured(UserError):
    def __init__(self, command: str = "gen", hint: str | None = None):
        files = " or ".join(str(p) for p in config_files())
        rows = [("--model MODEL", "on the command line"), (f"{ENV_MODEL}=MODEL", "in the environment"),
                ('[llm] model = "MODEL"', f"in {files}")]
        lines = [f"no LLM is configured for `ascendcraft {command}`; set one with"]
        lines += [f"    {a:<34} {b}" for a, b in rows]
        lines.append("  MODEL is a litellm model string; the key comes from the provider's own variable:")
        lines += [f"    {a:<34} {b}" for a, b in MODEL_EXAMPLES]
        super().__init__("\n".join(lines),
                         hint=hint or "for a hand-written kernel, use `ascendcraft check KERNEL.dsl --op OP.py` and "
                                      "`ascendcraft lower KERNEL.dsl --op OP.py`")


def resolve(model: str | None = None, api_base: str | None = None, *, timeout: float | None = None,
            max_tokens: int | None = None, retries: int | None = None) -> ModelConfig:
    """The model settings: arguments win over the environment, which wins over the config file."""
    table, path = _found_config()
    where = f"config file {path}"
    if model:
        source = "--model"
    elif os.environ.get(ENV_MODEL):
        model, source = os.environ[ENV_MODEL], ENV_MODEL
    elif table.get("model"):
        model, source = table["model"], where
    else:
        raise NoModelConfigured()
    model = model.strip()
    if not model or any(c.isspace() for c in model):
        raise UserError(f"model {model!r} (from {source}) is not a litellm model string",
                        hint="e.g. " + ", ".join(m for m, _ in MODEL_EXAMPLES))
    api_base = api_base or os.environ.get(ENV_API_BASE) or table.get("api_base") or None
    cfg = ModelConfig(model=model, api_base=api_base,
                      timeout=float(timeout if timeout is not None else table.get("timeout", DEFAULT_TIMEOUT_S)),
                      max_tokens=max_tokens if max_tokens is not None else table.get("max_tokens"),
                      retries=retries if retries is not None else table.get("retries", DEFAULT_RETRIES),
                      backoff=float(table.get("backoff", DEFAULT_BACKOFF_S)), source=source)
    if cfg.timeout <= 0:
        raise UserError(f"the LLM timeout must be positive, not {cfg.timeout:g} s")
    if cfg.retries < 0:
        raise UserError(f"the number of LLM retries cannot be negative ({cfg.retries})")
    if cfg.max_tokens is not None and cfg.max_tokens < 1:
        raise UserError(f"max_tokens must be at least 1, not {cfg.max_tokens}")
    return cfg
