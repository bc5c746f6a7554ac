"""The driver's stop signals: SIGTERM and SIGHUP stop a command (a run, a build, a traced
program) the way Ctrl-C does, at any moment of it: planning, probes, builds, between and inside
launches. The first stop signal raises Interrupted (exit 128 + the signal); later ones are
ignored until the command has ended what it started and marked its run."""
from __future__ import annotations

import functools
import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

from hpceval.errors import Interrupted


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# Installed contexts (nested ones change nothing), stores under way (a signal waits for their
# end), the signal that came while one was under way, and the one whose Interrupted the handler
# raised, until it is seen caught (lost()).
_state = {"depth": 0, "held": 0, "pending": 0, "raised": 0}


def _stop(signum: int, _frame) -> None:
    # Once: the cleanup that follows (killing the launch's process group, marking the run) is
    # bounded and should not be cut short by a second signal.
    for sig in _STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    if _state["held"]:
        _state["pending"] = signum           # raised when the write in progress is whole
        return
    _state["raised"] = signum
    raise Interrupted(signum)


def caught() -> None:
    """The stop signal's Interrupted reached a handler that acts on it."""
    _state["raised"] = 0


def check() -> None:
    """Raise again a stop signal whose Interrupted was lost: a handler's exception raised inside
    a weakref callback or a __del__ is printed as ignored and the code goes on (the driver under
    SIGTERM during an import's module-lock callback then waited for its hung launch for good).
    A loop that waits calls this between its waits."""
    if _state["raised"]:
        signum, _state["raised"] = _state["raised"], 0
        raise Interrupted(signum)


@contextmanager
def driver_signals() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT stop the command the way Ctrl-C does: the launch or build in
    progress is killed with its processes and the run marked interrupted. Nested uses keep the
    outermost's handlers (a second signal stays ignored until the outermost ends)."""
    if threading.current_thread() is not threading.main_thread() or _state["depth"]:
        yield                                # only the main thread may set handlers
        return
    before = {sig: signal.signal(sig, _stop) for sig in _STOP_SIGNALS}
    _state["depth"], _state["pending"], _state["raised"] = 1, 0, 0
    try:
        yield
    finally:
        _state["depth"] = 0
        for sig, handler in before.items():
            signal.signal(sig, handler)


F = TypeVar("F", bound=Callable)


def stoppable(fn: F) -> F:
    """`fn` runs under driver_signals from its first line: a stop signal during its planning,
    probes or builds ends it as one during a launch does."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with driver_signals():
            return fn(*args, **kwargs)
    return wrapper  # type: ignore[return-value]


@contextmanager
def held() -> Iterator[None]:
    """A stop signal during the block takes effect at its end: a write to the store (a launch
    and its records, the run's row) is made whole, never rolled back half-way."""
    _state["held"] += 1
    try:
        yield
    finally:
        _state["held"] -= 1
    if not _state["held"] and _state["pending"]:
        signum, _state["pending"] = _state["pending"], 0
        raise Interrupted(signum)
