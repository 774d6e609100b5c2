"""A progress line on stderr for the ``discourse-memory`` command.

Shown only when the stream is a terminal (a pipe or a log file gets nothing) and only once
the work has taken longer than ``LIMITS.progress_delay`` seconds: a quick command prints no line at all.
The line says what the command is doing, how far it is when that is known (a bar) and for
how long it has run; it is erased when the work ends, so the command's own output is
unchanged.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

from .limits import LIMITS

__all__ = ["Progress"]

_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class Progress:
    """``with Progress() as p: p.stage("compacting"); p.advance(done, total)``.

    A daemon thread redraws the line; the work itself never waits for it."""

    def __init__(self, stream: TextIO | None = None, *, delay: float | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.delay = LIMITS.progress_delay if delay is None else delay
        self._stage = ""
        self._fraction: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._width = 0
        self._start = 0.0

    @property
    def enabled(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        try:
            return bool(isatty and isatty())
        except (ValueError, OSError):  # a closed stream
            return False

    def stage(self, text: str) -> None:
        """What the command does now (its fraction is unknown until :meth:`advance`)."""
        self._stage, self._fraction = text, None

    def advance(self, done: int, total: int) -> None:
        """``done`` of ``total`` steps of the current stage are finished."""
        self._fraction = min(1.0, done / total) if total > 0 else None

    def line(self, now: float | None = None) -> str:
        """The line as it is drawn now."""
        elapsed = (time.monotonic() if now is None else now) - self._start
        frame = _SPINNER[int(elapsed / LIMITS.progress_interval) % len(_SPINNER)]
        fraction = self._fraction
        if fraction is None:
            return f"{frame} {self._stage} {elapsed:.0f}s"
        filled = int(fraction * LIMITS.progress_bar)
        return f"{frame} {self._stage} [{'#' * filled}{'.' * (LIMITS.progress_bar - filled)}] {fraction:4.0%} {elapsed:.0f}s"

    def __enter__(self) -> "Progress":
        self._start = time.monotonic()
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="discourse-memory-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def stop(self) -> None:
        """Erase the line and draw no more (before the command prints to the terminal)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
            if self._width:
                self._write("\r" + " " * self._width + "\r")

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while not self._stop.is_set():
            text = self.line()
            self._write("\r" + text.ljust(self._width))
            self._width = max(self._width, len(text))
            self._stop.wait(LIMITS.progress_interval)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (ValueError, OSError):  # the terminal went away: the work goes on without a line
            self._stop.set()
