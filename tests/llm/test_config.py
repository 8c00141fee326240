"""Which model: --model, then ASCENDCRAFT_MODEL, then the config file; and the no-model message."""
from pathlib import Path

import pytest

from ascendcraft.errors import UserError
from ascendcraft.llm.config import NoModelConfigured, resolve


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_flag_beats_environment_beats_config_file(monkeypatch):
    write(Path("ascendcraft.toml"), '[llm]\nmodel = "openai/from-file"\napi_base = "http://127.0.0.1:9/v1"\n')
    cfg = resolve()
    assert (cfg.model, cfg.api_base) == ("openai/from-file", "http://127.0.0.1:9/v1")
    assert "ascendcraft.toml" in cfg.source
    monkeypatch.setenv("ASCENDCRAFT_MODEL", "openai/from-env")
    monkeypatch.setenv("ASCENDCRAFT_API_BASE", "http://127.0.0.1:8/v1")
    cfg = resolve()
    assert (cfg.model, cfg.api_base, cfg.source) == ("openai/from-env", "http://127.0.0.1:8/v1", "ASCENDCRAFT_MODEL")
    cfg = resolve("anthropic/from-flag", "http://127.0.0.1:7/v1")
    assert (cfg.model, cfg.api_base, cfg.source) == ("anthropic/from-flag", "http://127.0.0.1:7/v1", "--model")


def test_user_config_file_and_explicit_config_variable(monkeypatch, tmp_path):
    write(tmp_path / "home" / ".config" / "ascendcraft" / "config.toml",
          '[llm]\nmodel = "ollama_chat/qwen"\ntimeout = 30\nretries = 1\nmax_tokens = 2000\n')
    cfg = resolve()
    assert (cfg.model, cfg.timeout, cfg.retries, cfg.max_tokens) == ("ollama_chat/qwen", 30.0, 1, 2000)
    other = write(tmp_path / "elsewhere.toml", '[llm]\nmodel = "openai/other"\n')
    monkeypatch.setenv("ASCENDCRAFT_CONFIG", str(other))
    assert resolve().model == "openai/other"
    monkeypatch.setenv("ASCENDCRAFT_CONFIG", str(tmp_path / "missing.toml"))
    with pytest.raises(UserError, match="does not exist"):
        resolve()


@pytest.mark.parametrize("text, match", [
    ('[llm]\nmodel = "openai/x"\napi_key = "sk-123"\n', "keys are never read from files"),
    ('[llm]\nmodle = "openai/x"\n', "unknown key `modle`"),
    ('[llm]\nmodel = 3\n', "must be a str"),
    ('[llm]\nmodel = "openai/x"\ntimeout = true\n', "must be a int or float"),
    ('[llm\nmodel = "x"\n', "not valid TOML"),
])
def test_bad_config_files_are_one_clear_error(text, match):
    write(Path("ascendcraft.toml"), text)
    with pytest.raises(UserError, match=match) as e:
        resolve()
    assert "ascendcraft.toml" in str(e.value)


def test_bad_values():
    with pytest.raises(UserError, match="not a litellm model string"):
        resolve("openai/gpt 4o")
    with pytest.raises(UserError, match="timeout must be positive"):
        resolve("openai/x", timeout=0)


def test_no_model_says_how_to_configure_one():
    with pytest.raises(NoModelConfigured) as e:
        resolve()
    text = str(e.value)
    assert e.value.exit_code == 2
    for needle in ("--model", "ASCENDCRAFT_MODEL", "[llm]", "ascendcraft.toml", "openai/gpt-4o", "anthropic/",
                   "hosted_vllm/NAME --api-base", "ollama_chat/", "OPENAI_API_KEY", "ascendcraft check",
                   "ascendcraft lower"):
        assert needle in text, needle
