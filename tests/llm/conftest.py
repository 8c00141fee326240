"""Offline fixtures for the LLM tests: a scripted litellm provider, a clean config, a fake sleep."""
from __future__ import annotations

import pytest

from ascendcraft.llm.client import load_litellm
from ascendcraft.sim.cache import cache_dir

SESSION_SIM_CACHE = cache_dir()   # before any test points ASCENDCRAFT_CACHE_DIR elsewhere


def pytest_configure(config):
    # pydantic's notice about a litellm type, raised on litellm's first call: not ours, not actionable
    config.addinivalue_line("filterwarnings", "ignore:Item 'summary' on TypedDict:UserWarning")


class Scripted:
    """A litellm CustomLLM that answers from a script: strings are replies, exceptions are raised.

    Every call is recorded (the messages and the optional parameters litellm passed on).
    """

    def __init__(self):
        litellm = load_litellm()

        class Handler(litellm.CustomLLM):
            def completion(inner, model, messages, *args, **kwargs):  # noqa: N805 - litellm's signature
                self.calls.append({"messages": [dict(m) for m in messages],
                                   "params": dict(kwargs.get("optional_params") or {}),
                                   "timeout": kwargs.get("timeout")})
                if not self.replies:
                    raise AssertionError("the scripted model was asked more often than scripted")
                reply = self.replies.pop(0)
                if isinstance(reply, BaseException):
                    raise reply
                # a real ModelResponse (with fake usage) built by litellm's own mock path
                return litellm.completion(model="openai/scripted", messages=messages, mock_response=reply)

        self.handler = Handler()
        self.replies: list = []
        self.calls: list[dict] = []

    def script(self, *replies) -> "Scripted":
        self.replies = list(replies)
        self.calls = []
        return self


@pytest.fixture
def scripted(monkeypatch):
    """Register the provider ``scripted/...`` for one test; litellm's global state is restored after."""
    litellm = load_litellm()
    s = Scripted()
    # litellm appends registered names to these module lists on each call: put their contents back after
    saved = {name: list(getattr(litellm, name)) for name in ("provider_list", "_custom_providers")}
    monkeypatch.setattr(litellm, "custom_provider_map", [{"provider": "scripted", "custom_handler": s.handler}])
    yield s
    for name, items in saved.items():
        getattr(litellm, name)[:] = items


@pytest.fixture(autouse=True)
def clean_llm_env(monkeypatch, tmp_path):
    """No model, key, config file or cache from the developer's machine leaks into a test."""
    for var in ("ASCENDCRAFT_MODEL", "ASCENDCRAFT_API_BASE", "ASCENDCRAFT_CONFIG", "ASCENDCRAFT_LLM_CACHE",
                "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("ASCENDCRAFT_CACHE_DIR", str(tmp_path / "cache"))
    # the simulator's builds are content-addressed: the test's cache shares the session's, so a test
    # does not compile the simulator's runtime again (its LLM cache stays its own)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "sim").symlink_to(SESSION_SIM_CACHE, target_is_directory=True)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)


class FakeSleep:
    def __init__(self):
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def fake_sleep():
    return FakeSleep()
