"""Slurm's word on a job, and the run of a job brought in line with it: a run whose job was
cancelled, hit its time limit or failed is marked so with Slurm's reason (its stored launches
and records stay as they are)."""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from hpceval.slurm.commands import output, scontrol_show
from hpceval.store import Store

# Slurm's final job states -> run status; COMPLETED keeps what the job's hpceval wrote.
FINAL = {"COMPLETED": None, "CANCELLED": "cancelled", "PREEMPTED": "cancelled",
         "TIMEOUT": "timeout", "DEADLINE": "timeout", "FAILED": "failed", "NODE_FAIL": "failed",
         "BOOT_FAIL": "failed", "OUT_OF_MEMORY": "failed", "SPECIAL_EXIT": "failed"}
# Run states a job's end can still change ('interrupted': the job's hpceval got Slurm's SIGTERM;
# 'abandoned': it died without a word, SIGKILLed at the job's end or by a user, and the next
# hpceval on its node said so before Slurm's word was read: a time-limit test in CI saw it).
OPEN = ("queued", "running", "interrupted", "abandoned")


def job_state(job_id: str) -> Optional[Tuple[str, str]]:
    """(state, reason) from scontrol (jobs finished within MinJobAge) or sacct (accounting);
    None when Slurm no longer knows the job."""
    info = scontrol_show("job", job_id)
    if info and "JobState" in info:
        return info["JobState"], _reason(info)
    text = output(["sacct", "-n", "-X", "-P", "-j", job_id, "-o",
                   "State,Reason,ExitCode,Timelimit"])
    if text and text.strip():
        state, why, code, limit = (text.strip().splitlines()[0].split("|") + [""] * 4)[:4]
        state = state.split()[0]
        return state, _reason({"JobState": state, "Reason": why, "ExitCode": code,
                               "TimeLimit": limit})
    return None


def _reason(info: Dict[str, str]) -> str:
    """Slurm's reason and the exit code when not 0:0; for a job that ran out of time (TIMEOUT,
    DEADLINE) its time limit instead (the exit code is then Slurm's signal)."""
    why = info.get("Reason", "None")
    if FINAL.get(info["JobState"]) == "timeout" and info.get("TimeLimit"):
        return f"time limit {info['TimeLimit']}" + (f", {why}" if why not in (
            "None", "", "TimeLimit") else "")
    code = info.get("ExitCode", "0:0")
    return ", ".join(p for p in (why if why not in ("None", "") else "",
                                 f"exit code {code}" if code not in ("0:0", "") else "") if p)


def describe(job_id: str, state: str, reason: str) -> str:
    return f"Slurm job {job_id} {state}" + (f" ({reason})" if reason else "")


def reconcile(store: Store, run: Dict) -> Optional[str]:
    """Bring a run of a Slurm job in line with the job's end; returns its (new) status."""
    job = run.get("job_id")
    if not job or run["status"] not in OPEN:
        return run["status"]
    got = job_state(job)
    if got is None or got[0] not in FINAL:
        return run["status"]
    state, reason = got
    status = FINAL[state]
    if status is None and run["status"] == "interrupted":
        return run["status"]
    if status is None:
        # COMPLETED yet still open: the job's hpceval never got to finish the run.
        status = "failed"
        reason = reason or "the job ended before hpceval finished the run (see its output)"
    store.end_job_run(run["id"], status, describe(job, state, reason))
    return status


def reconcile_all(store: Store) -> None:
    """Every open run that belongs to a job (quietly nothing where Slurm is absent)."""
    for run in store.list_runs():
        if run.get("job_id") and run["status"] in OPEN:
            reconcile(store, run)
