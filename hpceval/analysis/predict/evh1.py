"""The EVH1-like split hydrodynamics per time step (docs/models.md, docs/apps_evh1.md), a grid
of nx x ny x nz zones on a P x Q grid of pencils:

    T(p) = t_zone * B                       three sweeps over the largest pencil box B
         + transpose over P + over Q        X <-> Y among the P ranks of a row, Y <-> Z among
                                            the Q of a column; each rank sends N - 1 blocks of
                                            40 B x B / N (5 doubles a zone)
         + allreduce(8 B) over p            the time step

t_zone (us per zone and step, sweeps and the time step's pass) from the one-rank blast run
nearest in zones per rank; the transposes from the measured alltoall (alltoallv, alltoallw) or
N - 1 messages (pairwise). The packing copies are not modelled (on one rank there are none to
measure): the measured step_time's pack phase is what the model leaves out."""
from __future__ import annotations

from typing import Any, Dict

from hpceval.analysis.headlines import value
from hpceval.analysis.predict.grids import best_grid
from hpceval.analysis.predict.model import AppModel, one_rank_rate, register_model
from hpceval.catalog.bench_evh1 import VARIANTS, largest_box
from hpceval.catalog.common import int_tuple
from hpceval.catalog.params import Param

BYTES_PER_ZONE = 8 * 5          # the five fields a transpose moves


def _config(o: Dict[str, Any]) -> Dict[str, Any]:
    nx, ny, nz = int_tuple(str(o["grid"]), "grid", "NXxNYxNZ", 3)
    return {"nx": nx, "ny": ny, "nz": nz, "transpose": o["transpose"]}


def _zones(r: dict) -> float:
    p = r["params"]
    return float(p["nx"] * p["ny"] * p["nz"])


def _transpose(cfg: Dict[str, Any], n: int, box: int, m: Any) -> float:
    block = BYTES_PER_ZONE * box / n
    if n == 1:
        return 0.0
    if cfg["transpose"] == "pairwise":
        return (n - 1) * m.message(block)
    return m.collective("alltoall", n, block)


def _parts(cfg: Dict[str, Any], p: int, m: Any) -> Dict[str, float]:
    n = (cfg["nx"], cfg["ny"], cfg["nz"])
    us_zone, src = one_rank_rate(m.runs, "evh1", "step_time", _zones, value,
                                 n[0] * n[1] * n[2] / p,
                                 keep=lambda q: q.get("problem") == "blast",
                                 hint=" --set evh1.problem=blast")
    m.sources["evh1 time per zone"] = src

    def on(P: int, Q: int) -> Dict[str, float]:
        box = largest_box(n, P, Q)
        return {"sweeps": us_zone * box,
                "transposes": _transpose(cfg, P, box, m) + _transpose(cfg, Q, box, m),
                "time step": m.collective("allreduce", p, 8)}
    # a rank needs zones in every layout: P at most nx and ny, Q at most ny and nz
    (P, Q), parts = best_grid(p, on, min(n[0], n[1]), min(n[1], n[2]))
    m.layouts[("evh1", p)] = f"{P}x{Q}"
    return parts


def _matches(params: dict, cfg: Dict[str, Any]) -> bool:
    return (all(params.get(k) == cfg[k] for k in ("nx", "ny", "nz", "transpose"))
            and params.get("problem") == "blast" and params.get("scaling") == "strong")


register_model(AppModel(
    "evh1", "us/step", "step_time",
    (Param("grid", "str", "32x32x32", "global zones NXxNYxNZ"),
     Param("transpose", "choice", "alltoallv", "transpose variant", choices=VARIANTS)),
    _config, _parts, _matches, compute_parts=("sweeps",),
    options_of=lambda p: {"grid": f"{p['nx']}x{p['ny']}x{p['nz']}", "transpose": p["transpose"]}
                         if p.get("scaling") == "strong" and p.get("problem") == "blast" else {}))
