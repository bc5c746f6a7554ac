"""The parallel spectral shallow-water model per step (docs/models.md), on a P x Q grid (P splits
the latitudes, Q the wavenumbers):

    T(p) = (Legendre + FFT + grid + copies)(1 rank) / p    the transform work, split exactly
         + spectral(1 rank) / Q                            repeated by the P ranks of a column
         + 2 transposes over Q ranks                       8 then 10 doubles per (unit, m)
         + the global sum over P ranks                     14 L doubles per coefficient of mine

with units = 2 nh / P latitude rows x L levels (nh = hemisphere rows), M + 1 wavenumbers and
(M + 1)(M + 2) / 2 coefficients. The one-rank phases come from the one-rank run of the same
truncation and levels; the transposes and the sum from the collectives (measured or modelled)
or, for the pairwise transpose and the ring sum, from the message time. A modelled transpose
is MPICH's alltoallv (Machine.collective): rounds of a few messages posted at once, one
latency and the bytes serial per round. Rank r is (r / Q, r % Q) (row mapping): a row's ranks are 1 .. Q - 1 apart, a
column's Q, and the distance map says what that adds."""
from __future__ import annotations

from typing import Any, Dict

from hpceval.analysis.predict.grids import best_grid
from hpceval.analysis.predict.model import AppModel, phase_time, register_model
from hpceval.analysis.headlines import select
from hpceval.analysis.scaling import extra, nranks
from hpceval.catalog.bench_kernels import psst_grid_fits
from hpceval.catalog.params import Param
from hpceval.errors import UsageError

TRANSPOSES = ("alltoallv", "pairwise")
SUMS = ("allreduce", "ring")
PHASES = ("legendre", "fft", "grid", "pack", "spectral")


def grid_size(M: int) -> tuple:
    """(nlon, nlat) as the code picks them: the smallest even nlon >= 3M+1 with no prime
    factor above 5 (sst_check_args)."""
    n = 3 * M + 1
    while n % 2 or not _friendly(n):
        n += 1
    return n, (n + 1) // 2


def _friendly(n: int) -> bool:
    for f in (2, 3, 5):
        while n % f == 0:
            n //= f
    return n == 1


def _config(o: Dict[str, Any]) -> Dict[str, Any]:
    return dict(o)


def _one_rank(m: Any, cfg: Dict[str, Any]) -> Dict[str, float]:
    """us per step of each phase on one rank, from the newest one-rank run of this problem."""
    for run in m.runs:
        for r in select(run.get("records") or [], "psst", "run_time"):
            p = r["params"]
            if nranks(p) == 1 and (p.get("truncation"), p.get("levels")) == (
                    cfg["truncation"], cfg["levels"]) and extra(r, "phases"):
                m.sources["psst phases"] = f"psst one-rank run (T{p['truncation']} " \
                                           f"L{p['levels']}) of run {run.get('id')}"
                return {k: phase_time(r, k) or 0.0 for k in PHASES}
    raise UsageError(f"no one-rank psst record at T{cfg['truncation']} L{cfg['levels']} in this "
                     f"machine's runs: run 'hpceval run psst --set psst.ranks=1 --set "
                     f"psst.truncation={cfg['truncation']} --set psst.levels={cfg['levels']}'")


def _comm(cfg: Dict[str, Any], P: int, Q: int, m: Any) -> Dict[str, float]:
    M, L = cfg["truncation"], cfg["levels"]
    nh = (grid_size(M)[1] + 1) // 2
    units = 2 * nh / P * L / Q                        # per rank
    pair = units * (M + 1) / Q * 8                    # bytes per (unit, m) per double
    if Q == 1:
        tr = 0.0
    elif cfg["transpose"] == "alltoallv":
        tr = m.collective("alltoallv", Q, 8 * pair) + m.collective("alltoallv", Q, 10 * pair)
    else:
        tr = sum(m.message(8 * pair) + m.message(10 * pair) + 2 * m.apart(Q, k, aligned=True)
                 for k in range(1, Q))
    nbytes = 8 * 14 * L * (M + 1) * (M + 2) / 2 / Q
    if P == 1:
        gs = 0.0
    elif cfg["sum"] == "allreduce":
        gs = m.collective("allreduce", P, nbytes, stride=Q)
    else:
        gs = 2 * (P - 1) * (m.message(nbytes) + m.apart(P * Q, Q))
    return {"transposes": tr, "global sum": gs}


def _parts(cfg: Dict[str, Any], p: int, m: Any) -> Dict[str, float]:
    one = _one_rank(m, cfg)

    def on(P: int, Q: int) -> Dict[str, float]:
        return {"Legendre": one["legendre"] / p, "FFT": one["fft"] / p,
                "grid and copies": (one["grid"] + one["pack"]) / p,
                "spectral": one["spectral"] / Q, **_comm(cfg, P, Q, m)}
    nh = (grid_size(cfg["truncation"])[1] + 1) // 2     # P splits hemisphere rows, Q wavenumbers
    # only the grids the code runs (Q at most a rank's latitude-level units, too)
    (P, Q), parts = best_grid(p, on, nh, cfg["truncation"] + 1,
                              fits=lambda P, Q: psst_grid_fits(cfg["truncation"], cfg["levels"],
                                                               P, Q))
    m.layouts[("psst", p)] = f"{P}x{Q}"
    return parts


def _matches(params: dict, cfg: Dict[str, Any]) -> bool:
    return all(params.get(k) == cfg[k] for k in ("truncation", "levels", "transpose", "sum", "test"))


def _per_step(rec: dict) -> float:
    """psst's run_time is seconds per integration of `passes` steps."""
    from hpceval.analysis.headlines import value
    return value(rec) * 1e6 / float(extra(rec, "passes") or 1)


register_model(AppModel(
    "psst", "us/step", "run_time",
    # the defaults of `hpceval run psst` (and of the kernels suite): what is measured already
    (Param("truncation", "int", 21, "spectral truncation T", 1, 1000),
     Param("levels", "int", 4, "vertical levels", 1, 1000),
     Param("transpose", "choice", "alltoallv", "FFT transpose", choices=TRANSPOSES),
     Param("sum", "choice", "allreduce", "Legendre global sum", choices=SUMS),
     Param("test", "int", 2, "test case of the measured runs to compare with", 1, 6)),
    _config, _parts, _matches, measured=_per_step,
    compute_parts=("Legendre", "FFT", "grid and copies", "spectral"),
    options_of=lambda p: {k: p.get(k) for k in ("truncation", "levels", "transpose", "sum",
                                                   "test")}
                         if p.get("transpose") in TRANSPOSES and p.get("sum") in SUMS else {}))
