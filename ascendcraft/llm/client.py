"""The one door to the models: litellm, imported lazily, called with our own retries and cache.

litellm takes ~2 s to import and, by default, fetches a price list over the network at
import and loads a stray ``.env``; :func:`load_litellm` switches both off before the
import and is the only place that imports it. Calls go out with the SDK's retries off
(``num_retries=0``, ``max_retries=0``) and an explicit timeout; transient failures (rate
limit, timeout, connection, 5xx) are retried here with exponential backoff, so each retry
is visible and the wait is testable. Anything else (bad key, unknown model, bad request)
stops at once with one message saying what to fix.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

from ..errors import UserError
from .cache import ResponseCache
from .config import ModelConfig

# litellm exception classes worth another attempt (Timeout derives from APIConnectionError)
TRANSIENT = ("RateLimitError", "Timeout", "APIConnectionError", "ServiceUnavailableError",
             "InternalServerError", "BadGatewayError")
MAX_BACKOFF_S = 60.0
_NO_KEY = "sk-no-key"  # sent to OpenAI-compatible local servers, which accept any key


def load_litellm():
    """Import litellm with no network access and no ``.env`` loading at import time."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
    import litellm
    litellm.suppress_debug_info = True  # its "Give Feedback" banner goes to stdout and would corrupt --json
    return litellm


class LLMError(UserError):
    """The model could not be asked: bad credentials, unknown model, provider down. Exit code 2."""

    kind = "LLM error"


@dataclass
class Reply:
    """One answer of the model, with what it cost."""

    text: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None       # None: litellm does not know the model's price
    cached: bool = False                # replayed from the response cache (no call, no cost)
    latency_s: float = 0.0
    attempts: int = 1                   # calls made (1 + retries); 0 when cached

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    def to_json(self) -> dict:
        return {"tokens_in": self.prompt_tokens, "tokens_out": self.completion_tokens, "cost_usd": self.cost_usd,
                "cached": self.cached, "latency_s": round(self.latency_s, 3), "attempts": self.attempts,
                "finish_reason": self.finish_reason}


@dataclass
class Usage:
    """Running totals over every reply of one client."""

    calls: int = 0
    cached: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0     # live calls whose cost litellm does not know

    def add(self, r: Reply) -> None:
        self.cached += r.cached
        self.calls += 0 if r.cached else 1
        self.retries += max(r.attempts - 1, 0)
        self.prompt_tokens += r.prompt_tokens or 0
        self.completion_tokens += r.completion_tokens or 0
        if not r.cached:
            if r.cost_usd is None:
                self.unpriced_calls += 1
            else:
                self.cost_usd += r.cost_usd

    def to_json(self) -> dict:
        known = self.calls > self.unpriced_calls or self.calls == 0
        return {"calls": self.calls, "cached_replies": self.cached, "retries": self.retries,
                "tokens_in": self.prompt_tokens, "tokens_out": self.completion_tokens,
                "cost_usd": round(self.cost_usd, 6) if known else None,
                "cost_complete": self.unpriced_calls == 0}


def _short(err: BaseException, limit: int = 400) -> str:
    text = " ".join(str(err).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class LLMClient:
    """Chat completions through litellm for one configured model.

    ``sleep`` and ``on_retry(attempt, delay_s, error)`` are injectable: tests pass a fake
    sleep, the CLI a progress line.
    """

    def __init__(self, config: ModelConfig, *, cache: ResponseCache | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 on_retry: Callable[[int, float, BaseException], None] | None = None):
        self.config = config
        self.cache = cache if cache is not None else ResponseCache(mode="off")
        self.sleep = sleep
        self.on_retry = on_retry
        self.usage = Usage()
        self._extra: dict | None = None   # credentials resolved on the first live call

    # -- public ---------------------------------------------------------------------
    def complete(self, messages: list[dict], *, temperature: float = 0.0, seed: int | None = None) -> Reply:
        """The model's answer to a conversation (from the cache when it holds this very request)."""
        request = {"model": self.config.model, "api_base": self.config.api_base,
                   "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
                   "temperature": temperature, "seed": seed, "max_tokens": self.config.max_tokens}
        stored = self.cache.get(request)
        if stored is not None:
            reply = Reply(text=stored["text"], finish_reason=stored.get("finish_reason"),
                          prompt_tokens=stored.get("tokens_in"), completion_tokens=stored.get("tokens_out"),
                          cost_usd=stored.get("cost_usd"), cached=True, attempts=0)
        else:
            reply = self._call(request)
            self.cache.put(request, {"text": reply.text, "finish_reason": reply.finish_reason,
                                     "tokens_in": reply.prompt_tokens, "tokens_out": reply.completion_tokens,
                                     "cost_usd": reply.cost_usd})
        self.usage.add(reply)
        return reply

    def ask(self, prompt: str, *, temperature: float = 0.0) -> str:
        """One question, one answer (the lowering passes' assist hooks use this)."""
        return self.complete([{"role": "user", "content": prompt}], temperature=temperature).text

    def retry_note(self, attempt: int, delay: float, err: BaseException) -> str:
        """One line for a failed attempt that will be retried: which attempt, the error, the wait."""
        name = type(err).__name__
        text = _short(err, 160)
        for prefix in (f"litellm.{name}: ", f"{name}: "):   # litellm repeats the class name in the text
            text = text[len(prefix):] if text.startswith(prefix) else text
        return (f"{self.config.model}: attempt {attempt} of {self.config.retries + 1} failed "
                f"({name}: {text}); retrying in {delay:g} s")

    # -- calling ----------------------------------------------------------------------
    def _call(self, request: dict) -> Reply:
        litellm = load_litellm()
        if self._extra is None:
            self._extra = self._credentials(litellm)
        kwargs = dict(model=request["model"], messages=request["messages"], temperature=request["temperature"],
                      timeout=self.config.timeout, num_retries=0, max_retries=0,
                      drop_params=True,  # providers without `seed` (or temperature) get the call without it
                      **self._extra)
        for name in ("api_base", "seed", "max_tokens"):
            if request[name] is not None:
                kwargs[name] = request[name]
        attempt = 0
        while True:
            attempt += 1
            start = time.perf_counter()
            try:
                response = litellm.completion(**kwargs)
                break
            except Exception as err:  # noqa: BLE001 - sorted below; not ours: re-raised
                if not _is_provider_error(err):
                    raise
                if type(err).__name__ not in TRANSIENT and not _is_5xx(err):
                    raise self._refused(err, litellm) from None
                if attempt > self.config.retries:
                    raise LLMError(f"{self.config.model} did not answer after {attempt} attempt(s): {_short(err)}",
                                   hint="the provider is busy or unreachable: try again later, check --api-base "
                                        "and the network, or raise `timeout`/`retries` under [llm] in the "
                                        "config file") from None
                delay = min(MAX_BACKOFF_S, self.config.backoff * 2 ** (attempt - 1))
                if self.on_retry is not None:
                    self.on_retry(attempt, delay, err)
                self.sleep(delay)
        latency = time.perf_counter() - start
        choice = response.choices[0]
        usage = getattr(response, "usage", None)
        return Reply(text=choice.message.content or "", finish_reason=getattr(choice, "finish_reason", None),
                     prompt_tokens=getattr(usage, "prompt_tokens", None),
                     completion_tokens=getattr(usage, "completion_tokens", None),
                     cost_usd=_cost(litellm, response), latency_s=latency, attempts=attempt)

    def _provider(self, litellm) -> str | None:
        try:
            return litellm.get_llm_provider(self.config.model)[1]
        except Exception:  # noqa: BLE001 - custom providers are only known once a call registers them
            return None

    def _credentials(self, litellm) -> dict:
        """Fail before any call when the provider's key variable is unset; a dummy key for local servers."""
        provider = self._provider(litellm)
        if provider is None:
            return {}
        try:
            missing = litellm.validate_environment(model=self.config.model,
                                                   api_base=self.config.api_base)["missing_keys"]
        except Exception:  # noqa: BLE001 - no opinion: let the call decide
            return {}
        keys = [k for k in missing if k.endswith("_API_KEY")]
        if not keys:
            return {}
        if self.config.api_base and provider == "openai":
            # an OpenAI-compatible server at --api-base (vLLM, llama.cpp, ...) usually takes any key;
            # without one the SDK refuses to send the request at all
            return {"api_key": _NO_KEY}
        if self.config.api_base:
            return {}
        raise LLMError(f"no API key for {self.config.model}: {' and '.join(keys)} is not set",
                       hint=f"export {keys[0]}=... (keys are read from the provider's environment variable, "
                            "never stored), or point --api-base at a local OpenAI-compatible server")

    def _refused(self, err: BaseException, litellm) -> LLMError:
        name = type(err).__name__
        model = self.config.model
        if name in ("AuthenticationError", "PermissionDeniedError"):
            provider = self._provider(litellm) or model.split("/")[0]
            var = f"{provider.upper().replace('-', '_')}_API_KEY"
            return LLMError(f"{provider} refused the credentials for {model}: {_short(err)}",
                            hint=f"check {var} (the key is read from the provider's environment variable), "
                                 "or the key your --api-base server expects")
        if name == "NotFoundError":
            return LLMError(f"model {model} was not found: {_short(err)}",
                            hint="check the model name (provider/model, e.g. openai/gpt-4o) and --api-base")
        if name == "ContextWindowExceededError":
            return LLMError(f"the conversation no longer fits {model}'s context window: {_short(err)}",
                            hint="use a model with a longer context, or fewer --turns")
        if "LLM Provider NOT provided" in str(err) or name == "LiteLLMUnknownProvider":
            return LLMError(f"litellm does not know the provider of model {model!r}",
                            hint="write provider/model, e.g. openai/gpt-4o, anthropic/claude-sonnet-4-5, "
                                 "hosted_vllm/NAME (with --api-base) or ollama_chat/NAME")
        return LLMError(f"{model} refused the request ({name}): {_short(err)}",
                        hint="this is not retried; check the model string, --api-base and the provider's limits")


def _is_provider_error(err: BaseException) -> bool:
    """litellm maps provider failures to its own (OpenAI-style) classes; anything else is a bug."""
    return any(c.__module__.split(".")[0] in ("litellm", "openai", "httpx") for c in type(err).__mro__)


def _is_5xx(err: BaseException) -> bool:
    code = getattr(err, "status_code", None)
    return isinstance(code, int) and code >= 500


def _cost(litellm, response) -> float | None:
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:  # noqa: BLE001 - unknown model (local servers, custom providers): no price
        return None
    return None if cost is None else float(cost)
