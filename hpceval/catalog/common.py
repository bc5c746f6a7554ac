"""Parameters every benchmark takes (the C harness's repetition control) and planning helpers."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.params import Param

REPETITION = (
    Param("warmup", "int", 2, "warm-up samples discarded before measuring", 0, 1000),
    Param("min-reps", "int", 10, "samples kept at least per point", 1, 1_000_000),
    Param("max-reps", "int", 1000, "samples kept at most per point", 1, 10_000_000),
    Param("ci-target", "float", 0.02,
          "stop when the 95% CI of the median is within this fraction of it", 0.0001, 1.0),
    Param("budget", "float", 1.0, "seconds spent at most per measured point", 0.001, 3600.0),
    # Fault injection, so the tests can prove that a wrong answer, a dead rank or a hung rank is
    # caught: corrupt received/computed data, the last rank exits, the last rank hangs.
    Param("inject", "choice", "none", "fault injection for testing: none, corrupt, die, hang",
          choices=("none", "corrupt", "die", "hang")),
)

REPETITION_NAMES = tuple(p.name for p in REPETITION)


def repetition_args(bench, values: Dict[str, Any]) -> List[str]:
    args: List[str] = []
    for name in REPETITION_NAMES:
        if name == "inject" and values[name] == "none":
            continue
        args += bench.param(name).to_arg(values[name])
    return args


def launch_timeout(values: Dict[str, Any], points: int, fixed_s: float = 60.0) -> float:
    """A generous limit: every point may spend its whole budget, three times over, plus start-up.
    A hung rank is killed after this."""
    return fixed_s + 3.0 * float(values["budget"]) * max(points, 1)


def pow2_sizes(lo: int, hi: int, midpoints: bool = False) -> List[int]:
    sizes, s = [], lo
    while s <= hi:
        sizes.append(s)
        if midpoints and s + s // 2 <= hi and s >= 2:
            sizes.append(s + s // 2)
        s *= 2
    return sizes
