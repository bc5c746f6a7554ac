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


# Slurm's time formats (sbatch --time; squeue %L and %l print them too), each a pattern of
# ASCII digits and the fields it names, as sbatch(1) lists them.
_FIELDS = {"D": ("days", 86400, None), "H": ("hours", 3600, 24), "M": ("minutes", 60, 60),
           "S": ("seconds", 1, 60)}       # name, seconds, the bound after a larger field
_FORMS = {form: re.compile(re.sub("[DHMS]", "([0-9]+)", form))
          for form in ("M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S")}
# What Slurm reads as no limit at all.
UNLIMITED = ("UNLIMITED", "INFINITE", "-1")


def slurm_seconds(text: str) -> Optional[int]:
    """A Slurm time in seconds; None for unlimited. ValueError says why text is none of
    Slurm's forms, or a field after a larger one is out of its range ('1:60', '1-24')."""
    if text.upper() in UNLIMITED:
        return None
    for form, pattern in _FORMS.items():
        m = pattern.fullmatch(text)
        if m is None:
            continue
        names = [c for c in form if c in _FIELDS]
        values = [int(g) for g in m.groups()]
        for i, (c, v) in enumerate(zip(names, values)):
            bound = _FIELDS[c][2]
            if i > 0 and v >= bound:
                raise ValueError(f"{_FIELDS[c][0]} {v} in {form} must be below {bound}")
        return sum(_FIELDS[c][1] * v for c, v in zip(names, values))
    raise ValueError("not one of Slurm's forms " + ", ".join(_FORMS) + " (ASCII digits)")


def parse_left(text: str) -> Optional[float]:
    """squeue's %L ('1-02:03:04', '02:03:04', '03:04', 'UNLIMITED') in seconds; None when
    unlimited or unknown ('INVALID')."""
    try:
        left = slurm_seconds(text.strip())
    except ValueError:
        return None
    return None if left is None else float(left)


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
