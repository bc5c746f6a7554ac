"""Which of a run's launches put more ranks on a node than it has cores, and which records came
from them. Records do not say which launch wrote them, so a record is tied to its benchmark's
launches by rank count (params nranks, P x Q, or the launch's own count when the benchmark ran
once)."""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List, Optional

from hpceval.simulate import mark

Run = Dict[str, Any]
Record = Dict[str, Any]


def _launch_ranks(launch: Dict[str, Any]) -> Optional[int]:
    n = (launch.get("meta") or {}).get("nranks") or launch.get("nranks")
    return n if isinstance(n, int) else None


def _over(run: Run, launch: Dict[str, Any]) -> bool:
    if any("oversubscribed" in str(w) for w in launch.get("warnings") or []):
        return True
    # a simulated host has the platform's cores (ranks per host), not this machine's
    cores = (mark.platform(run) or {}).get("ppn") or (run.get("fingerprint") or {}).get("cores")
    hosts = (launch.get("meta") or {}).get("hosts") or []
    if not isinstance(cores, int) or cores <= 0:
        return False
    per_host = max(Counter(map(str, hosts)).values(), default=_launch_ranks(launch) or 0)
    return per_host > cores


def oversubscribed_launches(run: Run) -> List[Dict[str, Any]]:
    return [l for l in run.get("launches") or [] if _over(run, l)]


def record_ranks(rec: Record) -> Optional[int]:
    p = rec.get("params") or {}
    for key in ("nranks", "np", "ranks_total"):
        if isinstance(p.get(key), int):
            return p[key]
    if isinstance(p.get("P"), int) and isinstance(p.get("Q"), int):
        return p["P"] * p["Q"]
    return None


def oversubscribed(run: Run, rec: Record) -> Optional[str]:
    """'4 ranks on 2 cores' when the record came from an oversubscribed launch, else None."""
    mine = [l for l in run.get("launches") or [] if l.get("benchmark") == rec.get("benchmark")]
    n = record_ranks(rec)
    if n is not None:
        mine = [l for l in mine if _launch_ranks(l) in (n, None)]
    over = [l for l in mine if _over(run, l)]
    if not over or len(over) < len(mine) and n is None:
        return None                   # some launches of it were fine and we cannot tell which
    ranks = n or _launch_ranks(over[0]) or "?"
    return f"{ranks} ranks on {(run.get('fingerprint') or {}).get('cores', '?')} cores"
