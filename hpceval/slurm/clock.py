"""The job's clock: a launch never outlives the allocation. Slurm 22.05 has no
SLURM_JOB_END_TIME (23.02 adds it), so the time left is asked of squeue (%L) before each launch;
an administrator's `scontrol update TimeLimit` is then seen too."""
from __future__ import annotations

import os
import re
from typing import Optional, Tuple

from hpceval.slurm.commands import output

# Seconds kept free at the end of the job: ending a launch (TERM, then KILL after 5 s) and
# storing its records must finish before Slurm kills the job.
DEFAULT_MARGIN_S = 15.0
# A launch given less than this is not started: it could not measure anything.
MIN_LAUNCH_S = 5.0


def parse_left(text: str) -> Optional[float]:
    """squeue's %L ('1-02:03:04', '02:03:04', '03:04', 'UNLIMITED') in seconds; None when
    unlimited or unknown."""
    m = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d+)", text.strip())
    if not m:
        return None
    days, hours, minutes, seconds = (int(g or 0) for g in m.groups())
    return float(((days * 24 + hours) * 60 + minutes) * 60 + seconds)


def parse_time_option(text: str) -> Optional[float]:
    """sbatch's --time in seconds: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S; None when it is none of
    them (sbatch judges) or unlimited."""
    m = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", text.strip())
    if not m:
        return None
    days, a, b, c = m.groups()
    if days is not None:                      # D-H[:M[:S]]
        h, mi, sec = int(a), int(b or 0), int(c or 0)
        return float(((int(days) * 24 + h) * 60 + mi) * 60 + sec)
    if c is not None:                         # H:M:S
        return float((int(a) * 60 + int(b)) * 60 + int(c))
    return float(int(a) * 60 + int(b or 0))   # M or M:S


class JobClock:
    """Outside a job (no SLURM_JOB_ID) it never ends and caps nothing."""

    def __init__(self, job_id: Optional[str] = None, margin_s: Optional[float] = None):
        self.job_id = job_id if job_id is not None else os.environ.get("SLURM_JOB_ID")
        self.margin_s = margin_s if margin_s is not None else float(
            os.environ.get("HPCEVAL_SLURM_MARGIN", DEFAULT_MARGIN_S))

    def query(self) -> Tuple[Optional[float], str]:
        """(seconds left for launches, the margin taken off; the job's time limit as squeue
        prints it); (None, '') without a limit or outside a job."""
        if not self.job_id:
            return None, ""
        text = output(["squeue", "-h", "-j", self.job_id, "-o", "%L %l"])
        words = (text or "").split()
        left = parse_left(words[0]) if len(words) == 2 else None
        return (None, "") if left is None else (left - self.margin_s, words[1])

    def left(self) -> Optional[float]:
        """Seconds left for launches (the margin taken off), None without a limit."""
        return self.query()[0]

    def ending(self) -> bool:
        left = self.left()
        return left is not None and left < MIN_LAUNCH_S

    def cap(self, timeout_s: float) -> float:
        left = self.left()
        return timeout_s if left is None else max(min(timeout_s, left), 1.0)
