"""The client: retries only on transient errors (without real sleeping), clear refusals, usage, the cache,
litellm imported lazily, and the network guard."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ascendcraft.llm.cache import CacheMiss, ResponseCache, request_key
from ascendcraft.llm.client import LLMClient, LLMError, _cost, load_litellm
from ascendcraft.llm.config import ModelConfig

litellm = load_litellm()
HI = [{"role": "user", "content": "hi"}]


def client(fake_sleep, model="scripted/m", retries=3, cache=None, **kw):
    return LLMClient(ModelConfig(model, retries=retries, backoff=2.0, timeout=42.0, **kw),
                     cache=cache or ResponseCache(mode="off"), sleep=fake_sleep)


def rate_limited():
    return litellm.RateLimitError(message="slow down", llm_provider="scripted", model="m")


def timed_out():
    return litellm.Timeout(message="no answer in time", model="m", llm_provider="scripted")


def test_rate_limit_is_retried_with_backoff(scripted, fake_sleep):
    scripted.script(rate_limited(), rate_limited(), "fine")
    c = client(fake_sleep)
    reply = c.complete(HI, temperature=0.5, seed=7)
    assert reply.text == "fine" and reply.attempts == 3
    assert len(scripted.calls) == 3
    assert fake_sleep.waits == [2.0, 4.0]        # exponential, and nothing really slept
    assert c.usage.retries == 2 and c.usage.calls == 1
    # the SDK's own retries are off, our timeout and sampling settings reach the provider
    params = scripted.calls[0]["params"]
    assert params["max_retries"] == 0 and params["temperature"] == 0.5 and params["seed"] == 7
    assert scripted.calls[0]["timeout"] == 42.0


def test_timeout_is_retried(scripted, fake_sleep):
    scripted.script(timed_out(), "answer")
    assert client(fake_sleep).complete(HI).text == "answer"
    assert len(scripted.calls) == 2 and fake_sleep.waits == [2.0]


def test_service_unavailable_is_retried(scripted, fake_sleep):
    scripted.script(litellm.ServiceUnavailableError(message="503", llm_provider="scripted", model="m"), "ok")
    assert client(fake_sleep).complete(HI).text == "ok"
    assert len(scripted.calls) == 2


def test_transient_errors_give_up_after_the_retries(scripted, fake_sleep):
    scripted.script(*[rate_limited() for _ in range(3)])
    with pytest.raises(LLMError) as e:
        client(fake_sleep, retries=2).complete(HI)
    assert len(scripted.calls) == 3 and fake_sleep.waits == [2.0, 4.0]
    assert "did not answer after 3 attempt(s)" in str(e.value) and "slow down" in str(e.value)
    assert e.value.exit_code == 2


def test_authentication_error_is_not_retried_and_names_the_key(scripted, fake_sleep):
    scripted.script(litellm.AuthenticationError(message="invalid api key", llm_provider="scripted", model="m"), "x")
    with pytest.raises(LLMError) as e:
        client(fake_sleep).complete(HI)
    assert len(scripted.calls) == 1 and fake_sleep.waits == []
    text = str(e.value)
    assert "refused the credentials" in text and "invalid api key" in text and "SCRIPTED_API_KEY" in text
    assert "Traceback" not in text


def test_bad_request_is_not_retried(scripted, fake_sleep):
    scripted.script(litellm.BadRequestError(message="bad field", model="m", llm_provider="scripted"), "x")
    with pytest.raises(LLMError, match="refused the request .*bad field"):
        client(fake_sleep).complete(HI)
    assert len(scripted.calls) == 1


def test_missing_provider_key_fails_before_any_call(fake_sleep):
    with pytest.raises(LLMError) as e:
        client(fake_sleep, model="openai/gpt-4o").complete(HI)
    assert "OPENAI_API_KEY is not set" in str(e.value)


def test_ask_and_usage(scripted, fake_sleep):
    scripted.script("forty-two")
    c = client(fake_sleep)
    assert c.ask("what is six times seven?") == "forty-two"
    assert scripted.calls[0]["messages"] == [{"role": "user", "content": "what is six times seven?"}]
    u = c.usage.to_json()
    assert u["calls"] == 1 and u["tokens_in"] > 0 and u["tokens_out"] > 0
    assert u["cost_usd"] is None and not u["cost_complete"]   # litellm has no price for a custom provider


def test_cost_comes_from_litellm_when_it_knows_the_model():
    known = litellm.completion(model="openai/gpt-4o-mini", messages=HI, mock_response="x")
    assert _cost(litellm, known) > 0


def test_cache_records_then_replays(scripted, fake_sleep, tmp_path):
    cache_dir = tmp_path / "c"
    scripted.script("recorded")
    first = client(fake_sleep, cache=ResponseCache(cache_dir, "on")).complete(HI, temperature=0.2, seed=1)
    assert not first.cached and len(scripted.calls) == 1
    files = list(cache_dir.glob("*.json"))
    assert len(files) == 1
    entry = json.loads(files[0].read_text())
    assert entry["response"]["text"] == "recorded" and entry["request"]["messages"] == HI
    assert "api_key" not in json.dumps(entry)

    scripted.script()   # any call now would fail the test
    again = client(fake_sleep, cache=ResponseCache(cache_dir, "replay")).complete(HI, temperature=0.2, seed=1)
    assert again.cached and again.text == "recorded" and again.attempts == 0
    assert scripted.calls == []
    # another seed is another request: replay mode refuses to call the model
    with pytest.raises(CacheMiss, match="replay mode"):
        client(fake_sleep, cache=ResponseCache(cache_dir, "replay")).complete(HI, temperature=0.2, seed=2)
    # off: the model is asked again
    scripted.script("fresh")
    assert client(fake_sleep, cache=ResponseCache(cache_dir, "off")).complete(HI, temperature=0.2, seed=1).text \
        == "fresh"


def test_damaged_cache_entries_are_asked_again(scripted, fake_sleep, tmp_path):
    cache = ResponseCache(tmp_path, "on")
    request = {"model": "scripted/m", "api_base": None, "messages": HI, "temperature": 0.0, "seed": None,
               "max_tokens": None}
    (tmp_path / f"{request_key(request)}.json").write_text("{not json")
    scripted.script("repaired")
    assert client(fake_sleep, cache=cache).complete(HI).text == "repaired"
    assert cache.get(request)["text"] == "repaired"


def test_importing_the_cli_and_generation_does_not_import_litellm():
    code = ("import sys, ascendcraft.cli, ascendcraft.llm.command, ascendcraft.llm.generate; "
            "ascendcraft.cli._parser(); print('litellm' in sys.modules)")
    repo = Path(__file__).resolve().parents[2]   # this checkout, not an installed copy
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo,
                         env={**os.environ, "PYTHONPATH": str(repo)}).stdout
    assert out.strip() == "False"


def _chain(err):
    while err is not None:
        yield err
        err = err.__cause__ or err.__context__


def test_the_network_guard_trips_on_a_real_call():
    # an IP literal (a documentation address): no DNS lookup, so the connect itself is what the guard sees
    with pytest.raises(Exception) as e:
        litellm.completion(model="openai/gpt-4o", messages=HI, api_base="http://203.0.113.7/v1", api_key="sk-test",
                           num_retries=0, max_retries=0, timeout=5)
    assert any("test tried to reach the network" in str(x) for x in _chain(e.value))


def test_an_unwritable_cache_is_a_warning_not_a_failure(scripted, fake_sleep, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = ResponseCache(blocker / "llm", "on")
    scripted.script("kept")
    assert client(fake_sleep, cache=cache).complete(HI).text == "kept"
    assert "could not write the LLM cache" in cache.write_errors[0]
