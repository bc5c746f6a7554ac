"""The barotropic (POP-like) solver per iteration (docs/models.md):

    T(p) = t_point * bx * by                          compute on the largest block
         + halo(bx, by, P, Q)                         one 8-neighbour update
         + (2 + 1 / check_every) * sum(p)             two inner products, the check every k

t_point from the one-rank run nearest in points per rank; the halo's messages (E/W: by doubles,
N/S: bx doubles, corners: one double) from the message time, plus what the farthest neighbour
adds on the distance map (row mapping, rank q P + p: E/W 1 and P - 1 apart, N/S P, corners
P +- 1); the sum as measured or modelled (allreduce) or a k-ary tree of messages (tree). The
best P x Q is the prediction."""
from __future__ import annotations

import math
from typing import Any, Dict

from hpceval.analysis.predict.grids import best_grid
from hpceval.analysis.predict.model import AppModel, one_rank_rate, phase_time, register_model
from hpceval.analysis.scaling import extra
from hpceval.catalog.params import Param
from hpceval.errors import UsageError

SUMS = ("allreduce", "tree")


def _config(o: Dict[str, Any]) -> Dict[str, Any]:
    nx, _, ny = str(o["grid"]).partition("x")
    if not (nx.isdigit() and ny.isdigit()) or int(nx) < 2 or int(ny) < 2:
        raise UsageError(f"barotropic: --grid {o['grid']}: expected NXxNY, e.g. 96x64")
    return {"nx": int(nx), "ny": int(ny), "halo": o["halo"], "sum": o["sum"],
            "branch": o["branch"], "check_every": o["check_every"], "land": "none"}


def halo_messages(bx: int, by: int, P: int, Q: int) -> list:
    """Bytes of the messages an interior rank sends per update (periodic in x, closed in y)."""
    ew = [by * 8] * 2 if P > 1 else []
    ns = min(2, Q - 1) if Q > 1 else 0
    return ew + [bx * 8] * ns + [8] * (2 * ns)


def neighbour_offsets(P: int, Q: int) -> list:
    """How far apart (in ranks, row mapping) an interior rank and its halo's neighbours are."""
    return ([1, P - 1] if P > 1 else []) + ([P - 1, P, P + 1] if Q > 1 else [])


def _sum(cfg: Dict[str, Any], p: int, m: Any) -> float:
    if p == 1:
        return 0.0
    if cfg["sum"] == "allreduce":
        return m.collective("allreduce", p, 8)
    k = cfg["branch"]
    depth = math.ceil(math.log(p * (k - 1) + 1, k)) - 1      # levels below the root
    return 2 * depth * k * m.message(8) + 2 * sum(m.apart(p, k ** i) for i in range(depth))


def _parts(cfg: Dict[str, Any], p: int, m: Any) -> Dict[str, float]:
    t_pt, src = one_rank_rate(m.runs, "barotropic", "iteration_time",
                              lambda r: extra(r, "ocean_points"),
                              lambda r: phase_time(r, "compute"),
                              cfg["nx"] * cfg["ny"] / p, keep=lambda q: q.get("land") == "none",
                              hint=f" --set barotropic.land=none --set barotropic.grids="
                                   f"{cfg['nx']}x{cfg['ny']}")
    m.sources["barotropic compute per point"] = src

    def on(P: int, Q: int) -> Dict[str, float]:
        bx, by = -(-cfg["nx"] // P), -(-cfg["ny"] // Q)
        return {"compute": t_pt * bx * by,
                "halo": m.exchange(halo_messages(bx, by, P, Q),
                                   m.apart(p, *neighbour_offsets(P, Q))),
                "global sums": (2 + 1 / cfg["check_every"]) * _sum(cfg, p, m)}
    (P, Q), parts = best_grid(p, on, cfg["nx"], cfg["ny"])
    m.layouts[("barotropic", p)] = f"{P}x{Q}"
    return parts


def _matches(params: dict, cfg: Dict[str, Any]) -> bool:
    return (params.get("nx"), params.get("ny"), params.get("land"), params.get("sum"),
            params.get("halo"), params.get("scaling", "strong")) == (
        cfg["nx"], cfg["ny"], "none", cfg["sum"], cfg["halo"], "strong") and (
        cfg["sum"] != "tree" or int(params.get("branch") or 0) == cfg["branch"])


register_model(AppModel(
    "barotropic", "us/iteration", "iteration_time",
    (Param("grid", "str", "96x64", "global grid NXxNY"),
     Param("halo", "choice", "pack", "halo method of the measured runs to compare with (the "
           "model is the same)", choices=("pack", "datatype", "put")),
     Param("sum", "choice", "allreduce", "global sum", choices=SUMS),
     Param("branch", "int", 2, "tree branching factor", 2, 64),
     Param("check_every", "int", 10, "iterations per convergence check", 1, 100000)),
    _config, _parts, _matches,
    options_of=lambda p: {"grid": f"{p['nx']}x{p['ny']}", "halo": p.get("halo"),
                          "sum": p.get("sum"), "branch": p.get("branch") or 2}
                         if p.get("land") == "none" and p.get("sum") in SUMS
                         and p.get("scaling", "strong") == "strong" else {}))
