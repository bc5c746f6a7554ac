"""The master-worker Monte Carlo per cycle (docs/models.md), W = p - 1 workers:

    tracking  = particles * t_history / W                 (p = 1: the master tracks alone)
    handouts  = chunks * 2 * message(16)                  the master serves one request at a time
    T(p) = max(tracking, handouts) + W * message(tally) + bcast(p)   the tallies and the rendezvous

t_history from the one-rank run (the master tracking alone, no messages) of the same geometry."""
from __future__ import annotations

from typing import Any, Dict

from hpceval.analysis.predict.model import AppModel, one_rank_rate, register_model
from hpceval.analysis.headlines import value
from hpceval.catalog.params import Param

TALLY_BYTES = 256        # a cycle's tally: counts and track lengths of a few regions


def _config(o: Dict[str, Any]) -> Dict[str, Any]:
    return dict(o)


def _parts(cfg: Dict[str, Any], p: int, m: Any) -> Dict[str, float]:
    def per_history(r: dict) -> float:                 # history_time is ns
        return value(r) * 1e-3
    t_h, src = one_rank_rate(m.runs, "montecarlo", "history_time", lambda r: 1.0,
                             per_history, 1.0, keep=lambda q: q.get("geometry") == cfg["geometry"])
    m.sources["montecarlo time per history"] = src
    w = p - 1
    if w == 0:
        return {"tracking": cfg["particles"] * t_h, "handouts": 0.0, "tallies": 0.0}
    chunks = -(-cfg["particles"] // cfg["chunk"])
    tracking = cfg["particles"] * t_h / w
    handouts = chunks * 2 * m.message(16)
    return {"tracking": tracking, "handouts": max(handouts - tracking, 0.0),
            "tallies": w * m.message(TALLY_BYTES) + m.collective("bcast", p, 8)}


def _matches(params: dict, cfg: Dict[str, Any]) -> bool:
    return all(params.get(k) == cfg[k] for k in ("cycles", "particles", "chunk", "geometry"))


register_model(AppModel(
    "montecarlo", "us/cycle", "cycle_time",
    (Param("cycles", "int", 10, "cycles per run", 1, 10**9),
     Param("particles", "int", 10000, "histories per cycle", 1, 10**12),
     Param("chunk", "int", 100, "histories per work message", 1, 10**12),
     Param("geometry", "choice", "slab", "slab or spheres", choices=("slab", "spheres"))),
    _config, _parts, _matches, compute_parts=("tracking",),
    options_of=lambda p: {k: p.get(k) for k in ("cycles", "particles", "chunk", "geometry")}))
