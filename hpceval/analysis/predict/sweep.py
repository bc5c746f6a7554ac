"""The KBA wavefront sweep per source iteration (docs/models.md), on P x Q ranks over (i, j):

    stages per octant  n = ceil(nz / mk) * ceil(A / mmi)       A = sn (sn + 2) / 8 angles
    compute a stage    c = grind * bx * by * mk * mmi
    one stage          t = c + posted(east face, north face)   the messages' overheads and
                                                               bytes: eager sends are on
                                                               their way, no latency a stage
    hops               e = c + exchange(faces, east 1 rank apart)   one rank's first block to
                       u = c + exchange(faces, north P apart)       its neighbour's (the
                                                                    distance map's pair mean)
    E = (P - 1) e,  N = (Q - 1) u,  D = n t                    one octant's fills, its stages
    T(p) = 8 D + fe E + fn N + sum(p)                          fe, fn from the octant order

The octant order (csrc/kernels/lib/sweep_solver.c, OCTANTS, as Sweep3D): both k directions
from one (i, j) corner in a row, corners SW, NE, SE, NW. Octant o sweeps from its corner c_o;
the rank x hops(c_o, x) away (hops weighted e east-west, u north-south) starts it at
S_o + hops(c_o, x) and ends it D later, if it has finished octant o - 1 by then. The corner
starts when it has: S_o = S_(o-1) + D + hops(c_(o-1), c_o), and then every rank is ready in
time (S_o + hops(c_o, x) >= S_(o-1) + hops(c_(o-1), x) + D by the triangle inequality). The
last octant ends at its far corner, E + N after its start:

    T = 8 D + sum_o hops(c_(o-1), c_o) + E + N

Two octants from the same corner run back to back (hops 0: 2n stages, one fill); a change of
corner costs E for a change of i direction and N for one of j. SW, SW, NE, NE, SE, SE, NW, NW:
NE -> SE changes only j (octant 4's wave reaches SE after N), the other two changes both:
fe = 1 + 2 = 3 east fills, fn = 1 + 3 = 4 north fills, against 8 and 8 when every octant fills
its own pipeline. The grind time (per cell-angle) from the one-rank run nearest in cells per
rank."""
from __future__ import annotations

import math
from typing import Any, Dict, Sequence, Tuple

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


# (di, dj) of the eight octants in sweep_solver.c's order (its OCTANTS table; dk alternates)
ORDER = ((1, 1), (1, 1), (-1, -1), (-1, -1), (-1, 1), (-1, 1), (1, -1), (1, -1))


def fills(order: Sequence[Tuple[int, int]] = ORDER) -> Tuple[int, int]:
    """The east and north pipeline fills on the critical path of an octant order: the last
    octant's, and one for each change of the start corner's side along that axis."""
    pairs = list(zip(order, order[1:]))
    return 1 + sum(a[0] != b[0] for a, b in pairs), 1 + sum(a[1] != b[1] for a, b in pairs)


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
    fe, fn = fills()

    def on(P: int, Q: int) -> Dict[str, float]:
        bx, by = -(-cfg["nx"] // P), -(-cfg["ny"] // Q)
        compute = grind_ns * 1e-3 * bx * by * mk * mmi
        sends = [8 * by * mk * mmi] * (P > 1) + [8 * bx * mk * mmi] * (Q > 1)
        # both faces leave at once (one latency, as a halo's messages); a hop's latency is the
        # distance map's mean for its pairs (east 1 rank apart, north P): a path crosses some
        # pairs in a leaf and some beyond it
        east = (P - 1) * (compute + m.exchange(sends, m.apart(p, 1, mean=True)))
        north = (Q - 1) * (compute + m.exchange(sends, m.apart(p, P, mean=True)))
        return {"compute": 8 * stages * compute, "messages": 8 * stages * m.posted(sends),
                "pipeline fill": fe * east + fn * north,
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
