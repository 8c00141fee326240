"""Detection of the npu backend; building and running cannot be exercised without an NPU."""
from __future__ import annotations

import importlib.util
import stat

import numpy as np
import pytest

from ascendcraft.backends import npu
from ascendcraft.errors import UserError
from codegen_specs import leaky_relu_spec


@pytest.fixture
def no_cann(monkeypatch, tmp_path):
    """No toolkit anywhere: the env vars unset and the default install path absent."""
    for var in npu.CANN_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(npu, "DEFAULT_CANN", tmp_path / "no-such-toolkit")


def _fake_toolkit(root):
    compiler = root / "compiler" / "ccec_compiler" / "bin" / "bisheng"
    compiler.parent.mkdir(parents=True)
    compiler.write_text("#!/bin/sh\n")
    compiler.chmod(compiler.stat().st_mode | stat.S_IEXEC)
    return root


def test_cann_home_honours_the_environment_in_order(monkeypatch, tmp_path, no_cann):
    assert npu.cann_home() is None
    first, second = tmp_path / "home", tmp_path / "toolkit"
    first.mkdir()
    second.mkdir()
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(second))
    assert npu.cann_home() == second
    monkeypatch.setenv("ASCEND_HOME_PATH", str(first))
    assert npu.cann_home() == first
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "missing"))   # a stale variable is skipped
    assert npu.cann_home() == second


def test_without_cann_require_npu_names_what_is_missing(no_cann, monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch_npu" else object())
    ok, missing = npu.npu_status()
    assert not ok
    assert any("CANN toolkit" in m and "ASCEND_HOME_PATH is not set" in m for m in missing)
    assert any("torch_npu" in m for m in missing)
    with pytest.raises(UserError) as err:
        npu.require_npu()
    text = str(err.value)
    assert "CANN toolkit" in text and "torch_npu" in text and "--backend sim" in text and "set_env.sh" in text
    assert npu.default_backend() == "sim"


def test_a_toolkit_without_its_compiler_is_reported(monkeypatch, tmp_path, no_cann):
    (tmp_path / "cann").mkdir()
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path / "cann"))
    ok, missing = npu.npu_status()
    assert not ok and any("bisheng" in m for m in missing)
    assert not any("CANN toolkit (" in m for m in missing)


def test_toolkit_compiler_and_module_present_but_no_device(monkeypatch, tmp_path, no_cann):
    home = _fake_toolkit(tmp_path / "cann")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(home))
    assert npu.bisheng_path(home) == home / "compiler/ccec_compiler/bin/bisheng"
    monkeypatch.setattr(npu.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())
    monkeypatch.setattr(npu, "_device_available", lambda: (False, ""))
    ok, missing = npu.npu_status()
    assert not ok and len(missing) == 1 and "NPU device" in missing[0]
    monkeypatch.setattr(npu, "_device_available", lambda: (True, ""))
    assert npu.npu_status() == (True, [])
    assert npu.require_npu() == home and npu.default_backend() == "npu"


def test_build_and_run_without_cann_is_a_user_error(no_cann, tmp_path):
    spec = leaky_relu_spec()
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(UserError, match="cannot build for the NPU"):
        npu.build_and_run(spec, tmp_path / "project", [x], [(2, 3)])


def test_launcher_arguments_and_files(tmp_path):
    """run_launcher's side of the contract with host/main.cpp, with a fake launcher standing in."""
    spec = leaky_relu_spec()
    launcher = tmp_path / "build" / "leaky_relu_custom_launcher"
    launcher.parent.mkdir()
    # Copies x to y and records its arguments: checks file names, dims and attributes.
    launcher.write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/args.txt"\ncp input/x.bin output/y.bin\n')
    launcher.chmod(0o755)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = npu.run_launcher(spec, launcher, [x], [(2, 3)], {"negative_slope": 0.5}, device=1)
    np.testing.assert_array_equal(y, x)
    assert (tmp_path / "args.txt").read_text().split() == ["B=2", "N=3", "negative_slope=0.5", "device=1"]
    with pytest.raises(UserError, match="output y should have shape"):
        npu.run_launcher(spec, launcher, [x], [(3, 2)])


def test_bf16_travels_as_raw_16_bit_patterns():
    x = np.array([1.0, -2.5, 3.140625], np.float32)            # bf16-exact values
    raw = npu._to_raw(x, "bf16")
    assert len(raw) == 6
    np.testing.assert_array_equal(npu._from_raw(raw, "bf16", (3,)), x)
