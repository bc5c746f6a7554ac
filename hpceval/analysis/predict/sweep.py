"""The KBA wavefront sweep per source iteration (docs/models.md), on P x Q ranks over (i, j):

    stages per octant  n = ceil(nz / mk) * ceil(A / mmi)       A = sn (sn + 2) / 8 angles
    one stage          t = grind * bx * by * mk * mmi + the east and north faces at once
                       (rank i + P j: the east neighbour 1 rank apart, the north P: what the
                       slower adds on the distance map, the pairs' mean)
    fill               (P - 1) east hops and (Q - 1) north hops, each its own face's time
    T(p) = 8 * (n * t + fill) + sum(p)                         the pipeline's fill and drain
                                                              in every octant, the check

(each octant starts its pipeline anew: an upper bound where a code overlaps octant pairs).
The grind time (per cell-angle) from the one-rank run nearest in cells per rank."""
from __future__ import annotations

import math
from typing import Any, Dict

from hpceval.analysis.predict.grids import best_grid
from hpceval.analysis.predict.model import AppModel, one_rank_rate, register_model
from hpceval.analysis.headlines import value
from hpceval.catalog.params import Param
from hpceval.errors import UsageError


def _config(o: Dict[str, Any]) -> Dict[str, Any]:
    dims = str(o["grid"]).split("x")
    if len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
        raise UsageError(f"sweep: --grid {o['grid']}: expected IxJxK, e.g. 24x24x24")
    if o["sn"] not in (2, 4, 6, 8):
        raise UsageError(f"sweep: --set sn={o['sn']}: one of 2, 4, 6, 8")
    return {"nx": int(dims[0]), "ny": int(dims[1]), "nz": int(dims[2]), "sn": o["sn"],
            "mk": o["mk"], "mmi": o["mmi"]}


def _parts(cfg: Dict[str, Any], p: int, m: Any) -> Dict[str, float]:
    cells = cfg["nx"] * cfg["ny"] * cfg["nz"]
    def block(r: dict) -> float:
        q = r["params"]
        return float(q["nx"] * q["ny"] * q["nz"])
    # the record's value is already per cell-angle: time = grind x cells, work = cells
    grind_ns, src = one_rank_rate(m.runs, "sweep", "grind_time", block,
                                  lambda r: value(r) * block(r), cells / p,
                                  keep=lambda q: q.get("sn") == cfg["sn"])
    m.sources["sweep grind time"] = src
    angles = cfg["sn"] * (cfg["sn"] + 2) // 8
    mk, mmi = min(cfg["mk"], cfg["nz"]), min(cfg["mmi"], angles)
    stages = math.ceil(cfg["nz"] / mk) * math.ceil(angles / mmi)

    def on(P: int, Q: int) -> Dict[str, float]:
        bx, by = -(-cfg["nx"] // P), -(-cfg["ny"] // Q)
        compute = grind_ns * 1e-3 * bx * by * mk * mmi
        sends = [8 * by * mk * mmi] * (P > 1) + [8 * bx * mk * mmi] * (Q > 1)
        # both faces leave at once (small blocking sends complete eagerly): one latency, as a
        # halo's messages (LogGP; without it the sum, an upper bound). Summing them doubled the
        # pipeline's fill on a simulated fat tree (+48% to +75% at 16-256 ranks)
        # a pipeline's path takes each hop's time: the pairs' mean on the distance map (east
        # 1 rank apart, north P), the stages the slower face's
        east = [1] * (P > 1)
        north = [P] * (Q > 1)
        msg = m.exchange(sends, m.apart(p, *east, *north, mean=True))
        fill = ((P - 1) * (compute + m.exchange(sends, m.apart(p, *east, mean=True)))
                + (Q - 1) * (compute + m.exchange(sends, m.apart(p, *north, mean=True))))
        return {"compute": 8 * stages * compute, "messages": 8 * stages * msg,
                "pipeline fill": 8 * fill,
                "convergence sum": m.collective("allreduce", p, 8)}
    (P, Q), parts = best_grid(p, on, cfg["nx"], cfg["ny"])
    m.layouts[("sweep", p)] = f"{P}x{Q}"
    return parts


def _matches(params: dict, cfg: Dict[str, Any]) -> bool:
    return all(params.get(k) == cfg[k] for k in ("nx", "ny", "nz", "sn", "mk", "mmi")) and \
        params.get("scaling") == "strong"


register_model(AppModel(
    "sweep", "us/iteration", "iteration_time",
    (Param("grid", "str", "24x24x24", "global cells IxJxK"),
     Param("sn", "int", 6, "S_N order: 2, 4, 6, 8", 2, 8),
     Param("mk", "int", 10, "k-planes per block", 1, 100000),
     Param("mmi", "int", 3, "angles per block", 1, 10)),
    _config, _parts, _matches, compute_parts=("compute",),
    options_of=lambda p: {"grid": f"{p['nx']}x{p['ny']}x{p['nz']}", "sn": p["sn"],
                          "mk": p["mk"], "mmi": p["mmi"]}
                         if p.get("scaling") == "strong" else {}))
