"""The driver's stop signals: SIGTERM and SIGHUP stop a run (or a traced program) the way
Ctrl-C does."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

from hpceval.errors import Interrupted


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop(signum: int, _frame) -> None:
    # Once: the cleanup that follows (killing the launch's process group, marking the run) is
    # bounded and should not be cut short by a second signal.
    for sig in _STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


@contextmanager
def driver_signals() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT stop the run the way Ctrl-C does: the launch in progress is
    killed with its ranks and the run marked interrupted."""
    if threading.current_thread() is not threading.main_thread():
        yield                                # only the main thread may set handlers
        return
    before = {sig: signal.signal(sig, _stop) for sig in _STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)

