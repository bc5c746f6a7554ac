"""The eager limit (the SP2 study's): where the eager benchmark's late-receive time steps
(csrc/comm/eager.c), per placement of its rank pair. Reads export-format run dicts only."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from hpceval.analysis.comm import placement_of
from hpceval.analysis.commmodel import Switch, brackets, refined_sizes
from hpceval.analysis.headlines import select, value

BENCHMARK = "eager"
METRIC = "late_receive"
WHERE = {"intra": "intra-node", "inter": "inter-node"}
# A rendezvous adds at least a handshake to the late receive, where an eager message was already
# there: the step is a factor (3.4-4.7x on this VM's shared memory, Open MPI and MPICH), a copy's
# own steps are 5-15%.
PROTOCOL_STEP = 1.5


def late_receive_times(run: dict) -> Dict[str, List[Tuple[int, float, dict]]]:
    """Per placement ("intra-node", "inter-node", "unknown"): (bytes, median us, record),
    sorted by size."""
    out: Dict[str, List[Tuple[int, float, dict]]] = {}
    for rec in select(run.get("records") or [], BENCHMARK, METRIC):
        b = (rec.get("params") or {}).get("bytes")
        if isinstance(b, int) and value(rec) is not None:
            where = WHERE.get(placement_of(run, rec) or "", "unknown")
            out.setdefault(where, []).append((b, value(rec), rec))
    return {k: sorted(v, key=lambda p: p[0]) for k, v in out.items()}


def eager_switches(run: dict) -> List[Switch]:
    """Every step the refinement bracketed in the late-receive curves ("eager intra-node", ...)."""
    refined = refined_sizes(run, BENCHMARK)
    return [s for where, pts in late_receive_times(run).items()
            for s in brackets(f"eager {where}", [(b, t) for b, t, _ in pts], refined)]


def eager_limit(run: dict, where: str) -> Optional[Tuple[Switch, dict]]:
    """The first bracketed step up of at least PROTOCOL_STEP times (the first protocol change;
    a copy's own steps are smaller, and a later step, between 110 and 256 KB here under both
    MPIs, can be taller), with the record of its upper size; None when no such step was
    bracketed."""
    pts = late_receive_times(run).get(where, [])
    ups = [s for s in eager_switches(run) if s.series == f"eager {where}"
           and s.t_after >= PROTOCOL_STEP * s.t_before and _persists(s, pts)]
    if not ups:
        return None
    best = min(ups, key=lambda s: s.n_before)
    return best, next(r for b, _, r in pts if b == best.n_after)


def _persists(s: Switch, pts: List[Tuple[int, float, dict]]) -> bool:
    """Every size measured above the step, up to 4x its size, stays up (at least PROTOCOL_STEP
    times the time before it): every message above the limit is a rendezvous. A transient
    bracketed in the eager region is followed by a size back down (about one quiet sweep in a
    hundred here: 1280 - 1296 B at 0.39 -> 1.18 us with a 4 KiB limit; under MPICH 16352 B at
    1.07 us between 16320 B at 0.68 and 16368 B at 0.66, the limit at 16384 B)."""
    return all(t >= PROTOCOL_STEP * s.t_before for b, t, _ in pts if s.n_after < b <= 4 * s.n_after)
