"""The ``freshindex`` command. Every expected failure is one line and an exit code:
0 success, 1 a check failed, 2 bad usage or input, 3 not fresh under --require-fresh.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from freshindex.cli.parser import build_parser
from freshindex.cli.session import Context
from freshindex.core.exceptions import FreshindexError
from freshindex.process import collector, shutdown

log = logging.getLogger("freshindex")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, default in (("repo", "."), ("store", None), ("json", False), ("verbose", False)):
        if not hasattr(args, name):
            setattr(args, name, default)
    _setup_logging(args.verbose)
    on_main_thread = threading.current_thread() is threading.main_thread()
    # SIGTERM ends the command and what it started (process/shutdown.py)
    before = signal.signal(signal.SIGTERM, shutdown.terminate) if on_main_thread else None
    try:
        code = int(args.func(Context(args)))
    except FreshindexError as err:
        print(f"freshindex: {'error' if err.exit_code == 2 else 'failed'}: {err}", file=sys.stderr)
        code = err.exit_code
    except KeyboardInterrupt:
        print("freshindex: interrupted", file=sys.stderr)
        code = 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as cat does
        _drop_stdout()
        return 128 + signal.SIGPIPE
    except Exception as err:  # a bug: still one line; details with -v
        if args.verbose:
            log.exception("internal error")
        print(f"freshindex: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        code = 1
    finally:
        collector.resume()  # a command that failed while it imported (process/collector.py)
        if on_main_thread:  # main() called in a longer-lived process (tests)
            signal.signal(signal.SIGTERM, before)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
        return 128 + signal.SIGPIPE
    return code


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's own flush at exit
    does not fail on the closed pipe again (Python's signal docs, "Note on
    SIGPIPE")."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is when a line is logged (main() may run
    many times in one process, each with its own stderr)."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def _setup_logging(verbose: bool) -> None:
    """freshindex's own lines on stderr through a handler of its own (Prefect
    replaces the root logger's handlers when it is imported). Prefect's
    console output, where a failed task run prints its traceback, is off
    unless -v: the command prints one line, the Prefect API keeps the run's
    logs with their tracebacks, and LocalCluster workers inherit the setting.
    A variable the user set wins (Prefect reads it when it is imported)."""
    if not log.handlers:
        handler = _Stderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(logging.INFO if verbose else logging.WARNING)
    if not verbose:
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "CRITICAL")


def run() -> None:  # pragma: no cover - the console script; tests call main()
    """The `freshindex` command: main(), Prefect's queued logs and events sent
    (they carry the final task-run states), then an ordinary exit."""
    try:
        code = main()
    except SystemExit as stop:  # argparse usage errors
        code = stop.code if isinstance(stop.code, int) else 2
    if "prefect" in sys.modules:
        with contextlib.suppress(Exception):
            from prefect.events.worker import EventsWorker
            from prefect.logging.handlers import APILogWorker

            APILogWorker.drain_all(timeout=5)
            EventsWorker.drain_all(timeout=5)
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
