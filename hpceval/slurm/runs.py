"""A run inside a Slurm job: what it records about the job, and the run `hpceval submit` made
for it (HPCEVAL_RUN_ID), which the job's `hpceval run` fills instead of making a new one."""
from __future__ import annotations

import os
import signal
from typing import Any, Dict, Optional, Sequence

from hpceval.slurm.alloc import Allocation
from hpceval.store import Store

RUN_ID_VAR = "HPCEVAL_RUN_ID"


def job_settings() -> Dict[str, Any]:
    """settings["slurm"] of a run in an allocation (empty outside Slurm)."""
    alloc = Allocation.from_env()
    return {"slurm": alloc.describe()} if alloc else {}


def default_ranks(nranks: Optional[int]) -> Optional[int]:
    """--np, else the allocation's tasks (when there are at least two), else the plan's default."""
    alloc = Allocation.from_env()
    if nranks is not None or alloc is None or alloc.ntasks < 2:
        return nranks
    return alloc.ntasks


def open_run(store: Store, suite: str, tags: Sequence[str], fingerprint: Dict[str, Any],
             command: str, settings: Dict[str, Any]) -> int:
    """A new run, or the submitted one named by HPCEVAL_RUN_ID (its job's settings merged in)."""
    submitted = os.environ.get(RUN_ID_VAR)
    if submitted:
        return store.start_submitted_run(int(submitted), fingerprint, command, settings)
    run_id = store.create_run(suite, tags, fingerprint, command, settings)
    job = os.environ.get("SLURM_JOB_ID")
    if job:                   # a run under salloc or in the user's own sbatch script
        store.set_job(run_id, job)
    return run_id


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def interrupt_on_sigterm() -> None:
    """In a Slurm job, SIGTERM (scancel, the time limit) ends hpceval as Ctrl-C does: the launch
    under way is ended and stored with what it measured, the run marked interrupted (KillWait
    leaves a few seconds before SIGKILL); `hpceval runs` later says cancelled or timeout."""
    if os.environ.get("SLURM_JOB_ID"):
        signal.signal(signal.SIGTERM, _interrupt)
