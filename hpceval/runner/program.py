"""Launch a program that is not a benchmark (hpceval trace) the way a benchmark's launch is
started and ended (execute.py): in a session of its own that dies with the driver, under a time
limit (capped by a Slurm job's end) after which every process it started is ended, stopped with
its ranks on Ctrl-C, SIGTERM or SIGHUP. Its stdin and stdout are its own; its stderr is passed
through as it comes, and the last lines kept to say why it failed (a killed rank)."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Callable, Dict, List, Optional

from hpceval.runner.execute import (FINALIZE_GRACE_S, STDERR_KEEP, Outcome, _kill,
                                    _last_meaningful, interrupted, reap, start)
from hpceval.slurm.clock import JobClock
from hpceval.store.db import now

DEFAULT_TIMEOUT_S = 3600.0


def _tee(stream, tail: List[str]) -> None:
    for line in stream:
        sys.stderr.write(line)
        sys.stderr.flush()
        tail.append(line.rstrip())
        del tail[:-STDERR_KEEP]


def _wait(proc: subprocess.Popen, limit: float, done: Optional[Callable[[], bool]]) -> str:
    """Wait for the end ("exited"), the time limit ("timeout"), or FINALIZE_GRACE_S after
    `done()` turned true ("hung": the program's work is complete but it does not exit, as a
    rank hung in MPI_Finalize; execute.py ends a benchmark's launch the same way)."""
    deadline, hung = time.monotonic() + limit, "timeout"
    while True:
        left = deadline - time.monotonic()
        try:
            proc.wait(timeout=max(min(left, 0.2) if done else left, 0.0))
            return "exited"
        except subprocess.TimeoutExpired:
            pass
        if done is not None and done():
            deadline, hung, done = min(deadline, time.monotonic() + FINALIZE_GRACE_S), "hung", None
        elif time.monotonic() >= deadline:
            _kill(proc)
            return hung


def run_program(command: List[str], env: Dict[str, str], timeout_s: float,
                done: Optional[Callable[[], bool]] = None) -> Outcome:
    """Run `command` to its end or its time limit. Status ok (exit status 0), failed (exit_code
    is its status, negative for a signal; message what its stderr says), timeout (ended) or
    interrupted (signum set). With `done`, a program still running FINALIZE_GRACE_S after
    done() became true is ended and counts as ok (exit code 0), with a warning. A command that
    cannot start raises OSError."""
    out = Outcome(command=command, started=now())
    limit = JobClock().cap(timeout_s)
    t0 = time.monotonic()
    proc = start(command, env, stdin=None, stdout=None, stderr=subprocess.PIPE, text=True)
    tail: List[str] = []
    tee = threading.Thread(target=_tee, args=(proc.stderr, tail), daemon=True)
    tee.start()
    how = "exited"
    try:
        how = _wait(proc, limit, done)
        if how == "timeout":
            out.status = "timeout"
            out.message = f"killed after the {limit:.0f} s time limit (a rank hung?)"
    except KeyboardInterrupt as exc:
        _kill(proc)
        interrupted(out, exc)
    finally:
        reap(proc, out, t0)
        tee.join(timeout=5.0)
    if how == "hung":
        out.exit_code = 0
        out.warnings.append(f"still running {FINALIZE_GRACE_S:g} s after its work was complete "
                            "(hung in MPI_Finalize?): ended")
    if out.status == "ok" and out.exit_code != 0:
        out.status = "failed"
        out.message = _last_meaningful(tail)
    return out
