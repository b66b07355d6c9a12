"""Child processes that end with the command that started them.

A command SIGKILLed (a CI job cancelled with ``kill -9``, the OOM killer) runs
no clean-up, and a server it started in a session of its own lives on as an
orphan of PID 1: the embedded Prefect API kept ~230 MB and its port for as
long as the machine ran. Linux can tell a child when its parent dies
(``prctl(PR_SET_PDEATHSIG)``), set between fork and exec; the kernel does the
rest. Elsewhere the child is started as before.

The signal comes when the *thread* that forked the child ends, not the
process, so ``tethered()`` is refused off the main thread.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None


def tethered(sig: int = signal.SIGKILL) -> Callable[[], None] | None:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets ``sig`` when
    this process dies. None where the platform has no such signal, or off the
    main thread (whose end would kill the child early)."""
    libc = _libc()
    if libc is None or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()
    prctl = libc.prctl

    def in_child() -> None:
        prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the prctl took
            os._exit(1)

    return in_child
