"""Fixtures for the reliability suite: a real ``redis-server`` on loopback.

The server is Debian's ``redis-server`` (installed by ``scripts/setup.sh test`` when run
as root), started on a free port with an append-only file fsynced on every write, so a
restart -- even after ``SIGKILL`` -- keeps every write Redis acknowledged. Never a mock.
Tests that need it skip, saying why, only when ``redis-server`` is not installed (and
fail instead when ``CI`` is set, so a CI run cannot pass without them).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REDIS_SERVER = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason} (required in CI: scripts/setup.sh test installs it as root)")
    pytest.skip(reason)


class RedisServer:
    """One ``redis-server`` process; ``restart(kill=True)`` simulates a crash."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _args(self) -> list[str]:
        assert REDIS_SERVER is not None
        return [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "yes", "--appendfsync", "always",
                "--dir", str(self.dir), "--daemonize", "no", "--protected-mode", "yes",
                "--logfile", str(self.dir / "redis.log")]

    def start(self) -> None:
        """Start on ``self.port`` (a free port the first time) and wait for PING."""
        import redis

        fixed = bool(self.port)  # a restart keeps the port its clients know
        for _attempt in range(3):
            if not self.port:
                self.port = _free_port()
            self.proc = subprocess.Popen(self._args(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=0.5)
            deadline = time.monotonic() + 15
            try:
                while time.monotonic() < deadline and self.proc.poll() is None:
                    try:
                        # While it replays the append-only file Redis answers -LOADING.
                        if client.ping() and client.info("persistence").get("loading", 0) == 0:
                            return
                    except (redis.ConnectionError, redis.BusyLoadingError, redis.TimeoutError):
                        pass
                    time.sleep(0.02)
            finally:
                client.close()
            self._kill()
            if not fixed:
                self.port = 0  # the port was taken meanwhile: try another
        log_file = self.dir / "redis.log"
        log = log_file.read_text(errors="replace")[-2000:] if log_file.exists() else ""
        raise RuntimeError(f"redis-server did not start on 127.0.0.1:{self.port}\n{log}")

    def _kill(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def stop(self) -> None:
        self._kill(signal.SIGTERM)

    def restart(self, *, kill: bool = False) -> None:
        """Stop (``SIGKILL`` if ``kill``: a crash, no shutdown save) and start again on
        the same port and data directory."""
        self._kill(signal.SIGKILL if kill else signal.SIGTERM)
        self.start()


def _server(tmp: Path) -> Iterator[RedisServer]:
    if REDIS_SERVER is None:
        _missing("redis-server is not installed (Debian: apt-get install redis-server)")
    pytest.importorskip("redis", reason="the redis client (pip install redis) is not installed")
    server = RedisServer(tmp)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A Redis server shared by the whole session (tests use distinct keys)."""
    yield from _server(tmp_path_factory.mktemp("redis"))


@pytest.fixture()
def private_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis server of this test alone (for restarts)."""
    yield from _server(tmp_path)
