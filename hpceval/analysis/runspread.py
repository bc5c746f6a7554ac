"""How far one machine's runs of a point spread from one run to the next (issue #52).

A run measures each point in one launch; its samples show that launch's noise, not how far the
next launch on the same machine lands from it. On a shared VM the two differ by an order of
magnitude (docs/repeatability.md: samples within 1-3%, launches minutes apart 5-30%), so an
interval from one launch's samples calls most points of two runs of one quiet machine faster
or slower. The store holds the machine's earlier runs: the standard deviation of a point's log
value over them is its run-to-run spread s (n runs, MIN_RUNS or more), and one run against
another of the same machine then differs in log by a normal of standard deviation sqrt(2) s,
whose 95% interval, s estimated from n runs, is +-t(0.975, n - 1) sqrt(2) s (Student's t).

The sample standard deviation, not a robust one: runs that sit on two levels of the host (a
vCPU moved, a clock lowered) are the spread the interval must hold, and a median absolute
deviation of runs mostly on one level would hide the other.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from hpceval.analysis.headlines import value
from hpceval.quality import best_points
from hpceval.simulate import mark

Key = Tuple[str, str, str]          # (benchmark, metric, params as sorted JSON)
Record = Dict[str, Any]
MIN_RUNS = 3                        # a standard deviation of 2 runs has 1 degree of freedom
LEVEL = 0.95


def record_key(rec: Record) -> Key:
    return (str(rec.get("benchmark")), str(rec.get("metric")),
            json.dumps(rec.get("params") or {}, sort_keys=True))


def points(run: Dict[str, Any]) -> Dict[Key, Record]:
    """A run's points with a value, one per key (a re-measured point: its best)."""
    out: Dict[Key, Record] = {}
    for rec in best_points(run.get("records") or []):
        if isinstance(rec.get("stats"), dict) and value(rec) is not None:
            out.setdefault(record_key(rec), rec)
    return out


@dataclass(frozen=True)
class Spread:
    sd_log: float                   # standard deviation of ln(value) over the runs
    runs: int                       # how many runs measured the point

    def half_width(self) -> float:
        """The 95% half-width, in log, of one run's value against another's."""
        from scipy import stats
        return float(stats.t.ppf(0.5 + LEVEL / 2, self.runs - 1)) * math.sqrt(2) * self.sd_log

    def percent(self) -> str:
        return f"{100 * math.expm1(self.sd_log):.2g}%"


def spreads(runs: Iterable[Dict[str, Any]]) -> Dict[Key, Spread]:
    """Every point measured by MIN_RUNS or more of `runs` (one machine's), with its spread.
    Simulated runs are left out: their spread is the simulator's, not the machine's."""
    logs: Dict[Key, List[float]] = {}
    for run in runs:
        if mark.platform(run):
            continue
        for k, rec in points(run).items():
            v = value(rec)
            if v is not None and v > 0 and math.isfinite(v):
                logs.setdefault(k, []).append(math.log(v))
    out = {}
    for k, xs in logs.items():
        if len(xs) >= MIN_RUNS:
            mean = sum(xs) / len(xs)
            sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))
            out[k] = Spread(sd, len(xs))
    return out


def history_runs(rows: List[Record], reference: Record, judged: Iterable[int],
                 limit: int = 20) -> List[int]:
    """Ids of the runs that show the reference machine's spread: store rows (Store.list_runs)
    of the reference's fingerprint (the reference among them), not among the runs judged
    against it, the latest `limit` of them."""
    fp = (reference.get("fingerprint") or {}).get("hash")
    skip = set(judged)
    ids = [r["id"] for r in rows if fp and r.get("fp_hash") == fp and r["id"] not in skip]
    return ids[-limit:]


def describe(spread: Optional[Spread]) -> Optional[str]:
    """'8.9% over 6 runs of this machine' (None without a spread)."""
    return None if spread is None else f"{spread.percent()} over {spread.runs} runs of this machine"
