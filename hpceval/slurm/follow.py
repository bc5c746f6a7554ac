"""Follow a submitted job to its end (`hpceval submit --wait`): one line each time its state or
its run's progress changes (pending, running with which launch, done), then the run brought in
line with Slurm's final word."""
from __future__ import annotations

import time
from typing import Callable, Optional

from hpceval.slurm.jobstate import FINAL, job_state, reconcile
from hpceval.store import Store

POLL_S = 1.0


def _line(job: str, state: Optional[str], progress: dict) -> str:
    words = f"job {job}: {(state or 'gone').lower()}"
    if progress["launches"]:
        words += f", {progress['launches']} launches done, latest {progress['last']}"
    return words


def follow(db: str, run_id: int, job: str, say: Callable[[str], None] = print,
           poll_s: float = POLL_S) -> dict:
    """Waits for the job's end; returns the run's row as `hpceval runs` lists it."""
    last = None
    while True:
        got = job_state(job)
        state = got[0] if got else None
        store = Store(db)
        try:
            line = _line(job, state, store.progress(run_id))
            if line != last:
                say(line)
                last = line
            if state is None or state in FINAL:
                reconcile(store, store.run_row(run_id))
                return store.run_row(run_id)
        finally:
            store.close()
        time.sleep(poll_s)
