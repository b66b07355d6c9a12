"""The Prefect API a command starts for itself when none is configured."""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path

import httpx
import pytest

from freshindex.flows import api

pytestmark = pytest.mark.slow


def test_a_taken_port_starts_the_api_on_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between choosing a port and binding it the server can lose it (CI saw
    "Port ... is already in use", exit 1): the command starts it again on
    another port instead of failing."""
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no kept API found here
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect-home"))
    with contextlib.closing(socket.socket()) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        ports = [int(taken.getsockname()[1])]
        real = api.free_port
        monkeypatch.setattr(api, "free_port", lambda: ports.pop() if ports else real())
        with api.prefect_api() as url:
            assert f":{taken.getsockname()[1]}/" not in url
            assert httpx.get(f"{url}/health", timeout=5).status_code == 200


def test_free_ports_are_drawn_below_the_ephemeral_range() -> None:
    """A bind(0) port is ephemeral: any outgoing connection may take it before
    the server binds it."""
    floor = api._ephemeral_floor()
    ports = {api.free_port() for _ in range(20)}
    assert all(port < floor for port in ports)
    assert len(ports) > 1
