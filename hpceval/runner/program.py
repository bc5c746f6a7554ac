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
from typing import Dict, List

from hpceval.runner.execute import (STDERR_KEEP, Outcome, _kill, _last_meaningful, interrupted,
                                    reap, start)
from hpceval.slurm.clock import JobClock
from hpceval.store.db import now

DEFAULT_TIMEOUT_S = 3600.0


def _tee(stream, tail: List[str]) -> None:
    for line in stream:
        sys.stderr.write(line)
        sys.stderr.flush()
        tail.append(line.rstrip())
        del tail[:-STDERR_KEEP]


def run_program(command: List[str], env: Dict[str, str], timeout_s: float) -> Outcome:
    """Run `command` to its end or its time limit. Status ok (exit status 0), failed (exit_code
    is its status, negative for a signal; message what its stderr says), timeout (ended) or
    interrupted (signum set). A command that cannot start raises OSError."""
    out = Outcome(command=command, started=now())
    limit = JobClock().cap(timeout_s)
    t0 = time.monotonic()
    proc = start(command, env, stdin=None, stdout=None, stderr=subprocess.PIPE, text=True)
    tail: List[str] = []
    tee = threading.Thread(target=_tee, args=(proc.stderr, tail), daemon=True)
    tee.start()
    try:
        try:
            proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            _kill(proc)
            out.status = "timeout"
            out.message = f"killed after the {limit:.0f} s time limit (a rank hung?)"
    except KeyboardInterrupt as exc:
        _kill(proc)
        interrupted(out, exc)
    finally:
        reap(proc, out, t0)
        tee.join(timeout=5.0)
    if out.status == "ok" and out.exit_code != 0:
        out.status = "failed"
        out.message = _last_meaningful(tail)
    return out
