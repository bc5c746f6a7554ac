"""The communication area's analysis for the machine card: a rank pair inside or across
nodes, the plateau of a bandwidth curve, the barrier. Its rows are named in
hpceval/catalog/bench_comm.py."""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional

from hpceval.analysis.card import Cell
from hpceval.analysis.headlines import select, size_label, value
from hpceval.analysis.oversubscription import oversubscribed
from hpceval.quality import clean

Run = Dict[str, Any]
Record = Dict[str, Any]


def pair_placement(run: Run, rec: Record) -> Optional[str]:
    """'intra' or 'inter' node for a two-rank record (params ranks 'a-b'), from the hosts its
    benchmark's launches ran on; None when it cannot be told."""
    m = re.fullmatch(r"(\d+)-(\d+)", str((rec.get("params") or {}).get("ranks", "0-1")))
    if not m:
        return None
    a, b = int(m.group(1)), int(m.group(2))
    seen = set()
    for l in run.get("launches") or []:
        hosts = (l.get("meta") or {}).get("hosts") or []
        if l.get("benchmark") == rec.get("benchmark") and len(hosts) > max(a, b):
            seen.add("intra" if hosts[a] == hosts[b] else "inter")
    return seen.pop() if len(seen) == 1 else None


# The plateau of a bandwidth curve: the sizes within this factor of the largest measured.
PLATEAU_SPAN = 8


def plateau(recs: List[Record]) -> Optional[Cell]:
    """The median of the bandwidths over the plateau (the top three octaves of sizes), the
    undisturbed converged points when there are any: robust to one lucky or disturbed size,
    unlike the single highest point. The record shown is the point at that median."""
    top = max(r["params"]["bytes"] for r in recs)
    span = [r for r in recs if r["params"]["bytes"] * PLATEAU_SPAN >= top]
    good = [r for r in span if clean(r)] or span
    good.sort(key=value)
    rec = good[(len(good) - 1) // 2]
    lo = min(r["params"]["bytes"] for r in good)
    where = (f"median over the plateau, {size_label(lo)} – {size_label(top)} "
             f"({len(good)} size{'s' if len(good) != 1 else ''})")
    return Cell(value(rec), where, rec)


def _where(rec: Record) -> Dict[str, Any]:
    """Where a record's ranks ran, as the runner tagged it (hpceval/runner/placement.py)."""
    return rec.get("where") or (rec.get("extra") or {}).get("where") or {}


def placement_of(run: Run, rec: Record) -> Optional[str]:
    """'intra' or 'inter' node for a two-rank record: from the hosts of its pair when the record
    names them, else from the hosts of its benchmark's launches."""
    hosts = _where(rec).get("pair_hosts") or []
    if len(hosts) == 2:
        return "intra" if hosts[0] == hosts[1] else "inter"
    return pair_placement(run, rec) if rec.get("benchmark") == "pingpong" else None


# p2p modes that measure one direction and both directions at once (swap: both send at once).
_MODES = {("uni", "latency"): ("pingpong",), ("uni", "bandwidth"): ("pingpong", "stream"),
          ("bi", "latency"): ("swap",), ("bi", "bandwidth"): ("bistream", "swap")}


def _pair_records(run: Run, where: str, metric: str, direction: str) -> List[Record]:
    """Two-rank records at `where`: ping-pong's own first (one direction), else p2p's 0-1 / 0-k
    pairs in the direction's modes."""
    def fits(r: Record) -> bool:
        return (isinstance((r.get("params") or {}).get("bytes"), (int, float))
                and r["params"]["bytes"] > 0 and placement_of(run, r) == where)
    recs = run.get("records") or []
    own = [r for r in select(recs, "pingpong", metric) if fits(r)] if direction == "uni" else []
    return own or [r for r in select(recs, "p2p", metric) if fits(r)
                   and (r.get("params") or {}).get("mode") in _MODES[(direction, metric)]]


def mpi_point(where: str, metric: str, size: Optional[int],
              direction: str = "uni") -> Callable[[Run], Optional[Cell]]:
    """A two-rank exchange at `size` bytes (nearest size present, best protocol), or the median
    over the bandwidth plateau (size None); uni- or bi-directional."""
    def get(run: Run) -> Optional[Cell]:
        recs = _pair_records(run, where, metric, direction)
        if not recs:
            return None
        best = max if recs[0].get("better") == "higher" else min
        mode = lambda r: f", {r['params']['mode']}" if r.get("benchmark") == "p2p" else ""
        if size is None:
            return plateau(recs)
        near = min(abs(r["params"]["bytes"] - size) for r in recs)
        rec = best((r for r in recs if abs(r["params"]["bytes"] - size) == near), key=value)
        return Cell(value(rec), f"{size_label(rec['params']['bytes'])} messages{mode(rec)}", rec)
    return get



def barrier(run: Run, across: bool = False) -> Optional[Cell]:
    """Barrier time (slowest rank) at the most ranks measured without oversubscription; an
    oversubscribed count only when nothing else was measured, and then it says so. `across`:
    only launches whose ranks ran on more than one node."""
    recs = [r for r in select(run.get("records") or [], "collectives", "latency", op="barrier")
            if not across or len(_where(r).get("nodes") or []) > 1]
    if not recs:
        return None
    fair = [r for r in recs if not oversubscribed(run, r)] or recs
    rec = max(fair, key=lambda r: ((r.get("params") or {}).get("nranks") or 0, -value(r)))
    n = (rec.get("params") or {}).get("nranks")
    over = oversubscribed(run, rec)
    point = f"{n} ranks, slowest rank" if n else "slowest rank"
    return Cell(value(rec), point, rec, f"oversubscribed: {over}" if over else "")

