"""A run sized to its Slurm job's time. Before each launch the time left for launches (the
job's clock, hpceval/slurm/clock.py: squeue's time left less the margin for ending and storing)
is held against the launch's estimate (hpceval/catalog/estimate.py: start-up plus the expected
measuring time); a launch that does not fit is not started, nor is
any after it, and the run (status timeout) says why and which launches it left out."""
from __future__ import annotations

from typing import List, Optional, Sequence

from hpceval.catalog import LaunchSpec
from hpceval.catalog.estimate import estimate_s
from hpceval.slurm.clock import MIN_LAUNCH_S, JobClock

LISTED = 12                 # launches named in the one-line reason; settings keep them all


def no_room(clock: JobClock, spec: LaunchSpec) -> Optional[str]:
    """Why `spec` cannot start in the job's time left; None when it can (or outside a job)."""
    left, limit = clock.query()
    if left is None:
        return None
    need = max(estimate_s(spec), MIN_LAUNCH_S)
    if left >= need:
        return None
    return (f"{max(left, 0.0):.0f} s of the job's {limit} left for launches ({clock.margin_s:g} s "
            f"kept for ending and storing), {spec.label} may take {need:.0f} s")


def cut_short(clock: JobClock, spec: LaunchSpec, elapsed_s: float) -> str:
    return (f"{spec.label} was ended after {elapsed_s:.0f} s, {clock.margin_s:g} s before the "
            f"job's {clock.query()[1] or 'limit'}")


def left_out(why: str, rest: Sequence[LaunchSpec], what: str = "by the job's time limit") -> str:
    """The run's reason: why it stopped and the launches it did not make."""
    return f"stopped {what}: {why}" + (f"; {listed(rest)}" if rest else "")


def listed(rest: Sequence[LaunchSpec]) -> str:
    """'left out N launches: a, b, c and K more'."""
    labels: List[str] = [s.label for s in rest]
    more = f" and {len(labels) - LISTED} more" if len(labels) > LISTED else ""
    return (f"left out {len(labels)} launch{'es' if len(labels) > 1 else ''}: "
            f"{', '.join(labels[:LISTED])}{more}")
