"""pctm: coupled climate components sharing the processors, as the IBM p690 talk's PCTM
(docs/apps_pctm.md): psst's spectral atmosphere, POP's barotropic ocean on 2-D blocks, land and
sea-ice column kernels, and a coupler regridding conservatively between the Gaussian grid and the
ocean's grid. Simulated years per day and the time per component, in the sequential layout (every
component on every rank) and the concurrent one (ocean beside atmosphere, land and ice, split to
balance them), per rank count."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes, launch_timeout,
                                    rank_counts, ranks_sweep, repetition_args, spec_arg)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, Scales, Tunes,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

BENCH = "pctm"
METRICS = 2                 # run_time, sim_years_per_day per layout
TYPICAL_S_PER_DAY = 0.2     # an integration of one day at the defaults on one rank here (loaded)
SLOWDOWN = 20.0             # the time limit's allowance over the typical figure
PROBLEM = ("truncation", "nx", "ny", "land", "hours", "atm_steps", "ocn_steps", "land_steps",
           "ice_steps", "levels", "days")


def gauss_grid(m: int) -> Tuple[int, int]:
    """The atmosphere's nlon x nlat at truncation m (sst_check_args: the smallest even
    FFT-friendly nlon >= 3m+1, nlat = nlon / 2)."""
    def friendly(n: int) -> bool:
        for f in (2, 3, 5):
            while n % f == 0:
                n //= f
        return n == 1
    n = 3 * m + 1
    while n % 2 or not friendly(n):
        n += 1
    return n, (n + 1) // 2


def atm_fits(m: int, n: int) -> bool:
    """Some P x Q = n fits psst's grid at truncation m (pctm_atm_grid: P latitude blocks of
    north/south pairs, Q at most the wavenumbers and a block's latitudes)."""
    _, nlat = gauss_grid(m)
    nh = (nlat + 1) // 2
    return any(n % p == 0 and p <= nh and n // p <= m + 1
               and n // p <= 2 * (nh // p) - nlat % 2 for p in range(1, n + 1))


def ocn_fits(nx: int, ny: int, n: int) -> bool:
    """Some P x Q = n blocks of at least 2 x 2 points (pctm_ocn_grid)."""
    return any(n % p == 0 and nx // p >= 2 and ny // (n // p) >= 2 for p in range(1, n + 1))


def _layouts(v: Dict[str, Any], n: int) -> List[str]:
    """The layouts of a rank count: one rank has no concurrent layout (dropped when both were
    asked for, refused when only it was)."""
    asked = list(v["layouts"])
    if n == 1 and "concurrent" in asked:
        if asked == ["concurrent"]:
            raise UsageError("pctm np=1: the concurrent layout needs at least 2 ranks")
        asked.remove("concurrent")
    return asked


def _check(v: Dict[str, Any]) -> None:
    if len(v["ocean"]) != 1:
        raise UsageError("--set ocean: one grid NXxNY")
    m = int(v["truncation"])
    dt, dtmax = float(v["hours"]) * 3600.0 / int(v["atm-steps"]), min(2400.0 * 42 / m, 3600.0)
    if dt > dtmax * (1 + 1e-12):
        raise UsageError(f"pctm: {v['atm-steps']} atmosphere steps per {v['hours']:g} h are "
                         f"steps of {dt:g} s, beyond T{m}'s stable {dtmax:g} s (more atm-steps)")
    n = float(v["days"]) * 24.0 / float(v["hours"])
    if round(n) < 1 or abs(n - round(n)) > 1e-9 * n:
        raise UsageError(f"pctm: days={v['days']:g} is not a whole number of "
                         f"{v['hours']:g} h coupling intervals")


def _fits(v: Dict[str, Any], n: int, layouts: List[str]) -> None:
    m, (nx, ny) = int(v["truncation"]), v["ocean"][0]
    if not (atm_fits(m, n) and ocn_fits(nx, ny, n)):
        raise UsageError(f"pctm np={n}: the ranks do not divide T{m}'s atmosphere or the "
                         f"{nx}x{ny} ocean")
    k = int(v["ocean-ranks"])
    if "concurrent" in layouts and k and (k >= n or not atm_fits(m, n - k)
                                          or not ocn_fits(nx, ny, k)):
        raise UsageError(f"pctm np={n}: ocean-ranks={k} does not split the ranks into an ocean "
                         "and an atmosphere that fit")


def sample_seconds(v: Dict[str, Any]) -> float:
    """A typical integration here on one rank: the defaults' figure scaled by the work."""
    m, (nx, ny) = int(v["truncation"]), v["ocean"][0]
    steps = 24.0 / float(v["hours"])
    atm = 0.06 * (m / 21.0) ** 3 * int(v["atm-steps"]) / 6
    ocn = 0.35 * (nx * ny / 6144.0) ** 1.5 * int(v["ocn-steps"]) / 2
    cols = 0.5 * int(v["levels"]) / 18 * (int(v["land-steps"]) + int(v["ice-steps"])) / 12
    return TYPICAL_S_PER_DAY * float(v["days"]) * steps / 4 * (atm + ocn + cols) / 0.91


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    _check(v)
    (nx, ny), m = v["ocean"][0], int(v["truncation"])
    fixed = ([a for name in ("truncation", "ocean", "land", "hours", "atm-steps", "ocn-steps",
                             "land-steps", "ice-steps", "levels", "days", "ocean-ranks", "tol")
              for a in b.param(name).to_arg(v[name])] + repetition_args(b, v))
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        layouts = _layouts(v, n)
        _fits(v, n, layouts)
        label = f"pctm np={n}"
        check_memory(ctx.ranks_per_node(n) * rank_bytes(m, nx, ny), ctx, label)
        sample_s = sample_seconds(v)
        points = len(layouts) + (0 if "sequential" in layouts else 1)  # + calibration
        specs.append(LaunchSpec(
            b.name, f"{label} T{m} {nx}x{ny} {','.join(layouts)}", "pctm",
            fixed + ["--layouts", ",".join(layouts)], n, "core",
            expected_results=METRICS * len(layouts),
            estimate_s=expected_seconds(v, points, sample_s),
            timeout_s=launch_timeout(v, points)
            + SLOWDOWN * (int(v["warmup"]) + 3) * sample_s * points))
    return specs


def rank_bytes(m: int, nx: int, ny: int) -> int:
    """A rank's arrays: the coupler's per-cell owner and index of both grids and the ocean's
    global grid (every rank holds them, ~60 B a cell), the atmosphere's Legendre tables and
    grids (~ (m+1)^2 nlat 16 B), the ocean's block and the columns (small beside them)."""
    nlon, nlat = gauss_grid(m)
    return 60 * (nx * ny + nlon * nlat) + 16 * (m + 1) ** 2 * nlat + 400 * nlon * nlat


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    nx, ny = (int(x) for x in spec_arg(spec, "--ocean").split("x"))
    return rank_bytes(int(spec_arg(spec, "--truncation")), nx, ny) + harness_bytes(v)


register_benchmark(Benchmark(
    BENCH, "proxies",
    "PCTM-like coupled climate model (IBM p690 talk): spectral atmosphere (psst), POP's "
    "barotropic ocean on 2-D blocks, land and sea-ice column kernels, a coupler regridding "
    "conservatively (integrals checked to round-off) and redistributing between the "
    "decompositions; simulated years per day and the time per component, components one after "
    "another on every rank or concurrently on balanced disjoint subsets",
    options("pctm", "truncation ocean land hours atm-steps ocn-steps land-steps ice-steps levels "
            "days layouts ocean-ranks tol")
    + (ranks_sweep(),),
    _plan, ranks="--np or the ranks sweep", memory=_memory,
    tiny=("days=0.5", "ocean=32x24", "truncation=10"),
    scales=Scales("run_time", "s/run", ("layout",), "{layout}", PROBLEM),
    tunes=Tunes("run_time", PROBLEM, ("layout", "ocean_ranks"), ("layouts=all",),
                "{layout} ocean on {ocean_ranks}"),
    headline="simulated years per day per layout (median), seconds per simulated day per "
             "component and in the coupler, overhead breakdown",
    doc="docs/apps_pctm.md"))


# The study: the p690 talk's T42 atmosphere (its 2400 s step: 9 per 6 h) with POP's 1-degree
# ocean (gx1, 320x384) over the rank ladder, both layouts at each rung (which wins per rank
# count is the finding).
register_study(BENCH, truncation=42, atm_steps=9, ocean="320x384", ranks="ladder<=64",
               budget=0.5, min_reps=3, max_reps=10, warmup=1)
