import os
import socket

import pytest

# litellm must never touch the network or read a stray .env (set before anything imports it).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

_LOCAL = ("127.0.0.1", "::1", "localhost")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any connection to a non-loopback address fails the test."""
    real = socket.socket.connect

    def guarded(self, addr):
        host = addr[0] if isinstance(addr, tuple) else addr
        if isinstance(host, str) and host not in _LOCAL and not host.startswith("/"):
            raise RuntimeError(f"test tried to reach the network: {addr!r}")
        return real(self, addr)
    monkeypatch.setattr(socket.socket, "connect", guarded)
