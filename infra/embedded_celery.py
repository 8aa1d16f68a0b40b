"""Celery's worker and beat as child processes of the bot, for a machine with no services.

With no Redis configured (``EMBEDDED_WORKER=auto``, the default) ``saboteur-bot run``
starts one worker and one beat next to itself, so turn deadlines fire with nothing else
running; in production (``REDIS_URL`` set) the Procfile runs them as processes of their
own and the bot starts none.

The children share the bot's environment, working directory and terminal. They stop when
the bot stops: :meth:`EmbeddedCelery.stop` on the way out, and on Linux the kernel sends
them SIGTERM if the bot dies without a goodbye (``PR_SET_PDEATHSIG``), so none is left
behind.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType

from infra.settings import Settings

log = logging.getLogger(__name__)

APP = "infra.celery_app"
STOP_TIMEOUT_SECONDS = 15.0
_PR_SET_PDEATHSIG = 1


def _celery(*args: str) -> list[str]:
    return [sys.executable, "-m", __name__, "--parent", str(os.getpid()), *args]


class EmbeddedCelery:
    """A Celery worker (solo pool) and beat, started and stopped together."""

    def __init__(
        self,
        log_level: str = "INFO",
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
    ) -> None:
        self.log_level = log_level
        self.env = dict(os.environ if env is None else env)
        self.cwd = cwd
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self._folder: str | None = None
        self._stopping = threading.Event()

    def start(self) -> EmbeddedCelery:
        self._folder = tempfile.mkdtemp(prefix="saboteur-beat-")
        level = f"--loglevel={self.log_level}"
        worker = _celery("worker", "--pool=solo", level, "--without-mingle", "--without-gossip")
        worker.append(f"--hostname=saboteur-embedded-{os.getpid()}@%h")
        beat = _celery("beat", level, f"--schedule={Path(self._folder) / 'schedule'}")
        try:
            for name, argv in (("worker", worker), ("beat", beat)):
                # A session of their own: Ctrl+C reaches the bot, which stops them in turn.
                process = subprocess.Popen(argv, env=self.env, cwd=self.cwd, start_new_session=True)
                self.processes[name] = process
                log.info("embedded Celery %s started (pid %d)", name, process.pid)
                threading.Thread(
                    target=self._watch, args=(name, process), daemon=True, name=f"watch-{name}"
                ).start()
        except BaseException:
            self.stop()
            raise
        return self

    def _watch(self, name: str, process: subprocess.Popen[bytes]) -> None:
        code = process.wait()
        if not self._stopping.is_set():
            log.error("embedded Celery %s stopped by itself (exit status %s)", name, code)

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
        """SIGTERM to each child (Celery's warm shutdown), SIGKILL after ``timeout`` s."""
        self._stopping.set()
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for name, process in self.processes.items():
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("embedded Celery %s did not stop in %.0f s: killed", name, timeout)
                process.kill()
                process.wait()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def __enter__(self) -> EmbeddedCelery:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


@contextlib.contextmanager
def embedded_celery(settings: Settings) -> Iterator[EmbeddedCelery | None]:
    """Worker and beat around the ``with`` block when ``settings`` ask for them, else
    nothing (the Procfile's ``worker`` and ``beat`` do the job)."""
    if not settings.runs_embedded_worker:
        yield None
        return
    with EmbeddedCelery(settings.log_level) as children:
        yield children


def _die_with_parent(parent: int) -> None:
    """Ask the kernel for SIGTERM when the parent dies (Linux); if it is already gone,
    leave now."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        raise SystemExit(0)


def main(argv: Sequence[str]) -> None:
    """``python -m infra.embedded_celery --parent PID worker|beat ...``: become
    ``celery -A infra.celery_app worker|beat ...``, bound to the parent's life."""
    if len(argv) < 3 or argv[0] != "--parent":
        raise SystemExit("usage: python -m infra.embedded_celery --parent PID worker|beat ...")
    _die_with_parent(int(argv[1]))
    # The death signal survives exec: the Celery process itself is bound to the parent.
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", APP, *argv[2:]])


if __name__ == "__main__":
    main(sys.argv[1:])
