"""Scaling and the parallel overhead breakdown of the application proxies.

Strong scaling (the same global grid on more ranks) and weak scaling (the same block per rank)
of the barotropic solver, per variant of its latency-bound parts, and the parallel overhead of
each rank count split as the CCM/MP-2D overhead figure of the IBM p690 talk does:

    communication, load imbalance, buffer copies, duplicated work, and the rest ("other": the
    computation's rate changing with granularity, e.g. cache effects; may be negative)

The breakdown works on plain per-rank arrays and a one-rank baseline (overhead_breakdown), so
any proxy whose records carry per-rank phase timers can use it; record_arrays() is the thin
adapter for records shaped like barotropic's (docs/records.md, "phases", "wall_per_rank",
"flops_per_rank", "serial_flops").

All times are per iteration (or any other fixed unit of work) in microseconds; sums over ranks
are rank-microseconds.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence

import numpy as np

from hpceval.analysis.headlines import select, value
from hpceval.catalog import BENCHMARKS
from hpceval.catalog.registry import Scales, fill

# |unattributed| <= CLOSURE_TOL * sum_r W_r: the phase timers cover the timed loop, so the time
# outside every phase is a few clock reads per phase switch; 3% leaves room for a noisy host.
CLOSURE_TOL = 0.03

# Names of the cumulative curves, in the order the CCM/MP-2D figure stacks them.
CUMULATIVE = ("Comm", "plus Imbal", "plus Copy", "plus Dupl", "1 - Efficiency")
CATEGORIES = ("communication", "imbalance", "copies", "duplicated", "rate_change", "unattributed")


class Baseline(NamedTuple):
    """The reference run (normally one rank), per iteration: wall time W1, compute C1, copies K1,
    communication M1 (us) and flops F1. For a reference on more than one rank, each is the sum
    over its ranks."""
    wall: float
    compute: float
    copy: float
    comm: float
    flops: Optional[float] = None


@dataclass(frozen=True)
class Breakdown:
    """The overhead of one configuration, in rank-us per iteration (sums over ranks).

    overhead = total - baseline wall = communication + imbalance + copies + duplicated
               + rate_change + unattributed, exactly (unattributed is the remainder)."""
    nranks: int
    total: float          # sum_r W_r: p * Tp when every rank times the same loop
    overhead: float       # total - W1
    communication: float
    imbalance: float
    copies: float
    duplicated: float
    rate_change: float
    unattributed: float

    @property
    def efficiency(self) -> float:
        """Measured parallel efficiency W1 / sum_r W_r (= T1 / (p Tp))."""
        return 1.0 - self.overhead / self.total if self.total > 0 else float("nan")

    def percent(self) -> Dict[str, float]:
        """Each category, and "overhead" (1 - efficiency), in % of sum_r W_r."""
        keys = CATEGORIES + ("overhead",)
        return {k: 100.0 * getattr(self, k) / self.total if self.total > 0 else float("nan")
                for k in keys}

    def cumulative(self) -> Dict[str, float]:
        """The CCM/MP-2D curves in %: Comm, plus Imbal, plus Copy, plus Dupl, 1 - Efficiency.
        The gap between "plus Dupl" and "1 - Efficiency" is the rate change (plus the
        unattributed remainder)."""
        pc = self.percent()
        steps = np.cumsum([pc["communication"], pc["imbalance"], pc["copies"], pc["duplicated"]])
        return dict(zip(CUMULATIVE, [float(s) for s in steps] + [pc["overhead"]]))

    def closes(self, tol: float = CLOSURE_TOL) -> bool:
        """True when the categories account for the measured overhead: |unattributed| is at
        most tol * sum_r W_r (the phases cover the timed loop)."""
        return abs(self.unattributed) <= tol * self.total


def overhead_breakdown(wall: Sequence[float], compute: Sequence[float], copy: Sequence[float],
                       comm: Sequence[float], baseline: Baseline,
                       flops: Optional[Sequence[float]] = None) -> Breakdown:
    """Split the parallel overhead of one run on p ranks (per-rank arrays of us per iteration:
    wall time W_r, compute C_r, copies K_r, communication M_r; flops F_r per iteration) against
    the baseline (W1, C1, K1, M1, F1):

      overhead      O = sum W_r - W1
      imbalance     sum_r (max_r' (C_r' + K_r') - (C_r + K_r)), at most sum M_r (a rank with less
                    work waits for the others inside a communication phase)
      communication sum M_r - M1 - imbalance
      copies        sum K_r - K1
      duplicated    (sum F_r - F1) / F1 * C1  (0 without flop counts)
      rate_change   sum C_r - C1 - duplicated ("other": may be negative)
      unattributed  O - the five above (time outside every phase)
    """
    w, c, k, m = (np.asarray(a, dtype=float) for a in (wall, compute, copy, comm))
    p = len(w)
    if p == 0 or not (len(c) == len(k) == len(m) == p):
        raise ValueError(f"per-rank arrays of different lengths: wall {len(w)}, compute {len(c)}, "
                         f"copy {len(k)}, comm {len(m)}")
    total = float(w.sum())
    overhead = total - baseline.wall
    work = c + k
    imbalance = float(min((work.max() - work).sum(), m.sum()))
    communication = float(m.sum()) - baseline.comm - imbalance
    copies = float(k.sum()) - baseline.copy
    duplicated = 0.0
    if flops is not None and baseline.flops:
        f = np.asarray(flops, dtype=float)
        if len(f) != p:
            raise ValueError(f"flops has {len(f)} ranks, wall {p}")
        duplicated = (float(f.sum()) - baseline.flops) / baseline.flops * baseline.compute
    rate_change = float(c.sum()) - baseline.compute - duplicated
    unattributed = overhead - (communication + imbalance + copies + duplicated + rate_change)
    return Breakdown(p, total, overhead, communication, imbalance, copies, duplicated,
                     rate_change, unattributed)


# ---------------------------------------------------------------- records

def extra(rec: dict, key: str, default: Any = None) -> Any:
    """A key of the record's extra (export format), or of the record itself (a JSON Lines
    record before it is stored)."""
    ex = rec.get("extra") or {}
    return ex[key] if key in ex else rec.get(key, default)


def record_arrays(rec: dict) -> Optional[Dict[str, Any]]:
    """The per-rank arrays of a record with phase timers: {"wall", "compute", "copy", "comm"
    (numpy arrays, us per iteration; phases added up by kind), "flops" (array or None),
    "serial_flops" (float or None)}, or None when the record has no phases or wall_per_rank."""
    phases, wall = extra(rec, "phases"), extra(rec, "wall_per_rank")
    if not isinstance(phases, dict) or not phases or not isinstance(wall, list) or not wall:
        return None
    p = len(wall)
    by_kind = {k: np.zeros(p) for k in ("compute", "copy", "comm")}
    for ph in phases.values():
        per_rank = (ph or {}).get("per_rank")
        kind = (ph or {}).get("kind")
        if kind not in by_kind or not isinstance(per_rank, list) or len(per_rank) != p:
            return None
        by_kind[kind] += np.asarray(per_rank, dtype=float)
    flops = extra(rec, "flops_per_rank")
    flops = np.asarray(flops, dtype=float) if isinstance(flops, list) and len(flops) == p else None
    serial = extra(rec, "serial_flops")
    return {"wall": np.asarray(wall, dtype=float), **by_kind, "flops": flops,
            "serial_flops": float(serial) if isinstance(serial, (int, float)) else None}


def baseline_of(rec: dict) -> Optional[Baseline]:
    """The baseline quantities of a reference record (normally one rank): sums over its ranks.
    F1 is the work the reference run did (its counted flops), else its serial_flops: work
    beyond it in a parallel run is duplicated work (replicated updates, a costlier parallel
    algorithm)."""
    a = record_arrays(rec)
    if a is None:
        return None
    flops = float(a["flops"].sum()) if a["flops"] is not None else a["serial_flops"]
    return Baseline(float(a["wall"].sum()), float(a["compute"].sum()), float(a["copy"].sum()),
                    float(a["comm"].sum()), flops)


def record_breakdown(rec: dict, base: Baseline) -> Optional[Breakdown]:
    """overhead_breakdown of one record against `base` (baseline_of the one-rank record)."""
    a = record_arrays(rec)
    if a is None:
        return None
    return overhead_breakdown(a["wall"], a["compute"], a["copy"], a["comm"], base, a["flops"])


# ---------------------------------------------------------------- the proxies' records

def nranks(params: dict) -> int:
    """The ranks of a record: its process grid P x Q x R, a master and its workers, or (no
    grid: components on grids of their own, pctm) its ranks."""
    if "workers" in params:
        return int(params["workers"]) + 1
    if "P" not in params and "ranks" in params:
        return int(params["ranks"])
    return int(params.get("P") or 1) * int(params.get("Q") or 1) * int(params.get("R") or 1)


class Proxy(NamedTuple):
    """What scaling needs to know of a proxy's records, from its declaration (`scales=` in its
    catalog module: hpceval.catalog.registry.Scales): its time metric, which params make a
    variant (a series of its own) and which make the problem (strong scaling: the same problem
    on every rank count)."""
    scales: Scales

    @property
    def metric(self) -> str:
        return self.scales.metric

    @property
    def time_label(self) -> str:                  # the time column's heading
        return self.scales.unit

    def variant_key(self, params: dict) -> tuple:
        return tuple(params.get(k) for k in self.scales.variant)

    def variant_name(self, params: dict) -> str:
        return fill(self.scales.variant_label, params)

    def problem_key(self, params: dict) -> tuple:
        return tuple(params.get(k) for k in self.scales.problem)


# The proxies that scale: every benchmark that declares how (no list here).
PROXIES: Dict[str, Proxy] = {name: Proxy(b.scales) for name, b in BENCHMARKS.items() if b.scales}


def variant_name(params: dict) -> str:
    """The barotropic solver's variant: 'pack/tree(4)', halo variant / global-sum variant
    (branching factor of a tree)."""
    return PROXIES["barotropic"].variant_name(params)


def proxy(benchmark: str) -> Proxy:
    return PROXIES[benchmark]


def timed(records: Iterable[dict], benchmark: str) -> List[dict]:
    """The time records of untraced runs (a traced run's times include the tracer's cost)."""
    records = records if isinstance(records, list) else list(records)   # the same list: indexed once
    return [r for r in select(records, benchmark, proxy(benchmark).metric)
            if value(r) is not None and value(r) > 0 and not r["params"].get("traced")]


def _best_per_count(recs: List[dict]) -> Dict[int, dict]:
    """The record with the lowest median time per iteration at each rank count (best grid)."""
    best: Dict[int, dict] = {}
    for r in recs:
        p = nranks(r["params"])
        if p not in best or value(r) < value(best[p]):
            best[p] = r
    return dict(sorted(best.items()))


def _grid(params: dict) -> str:
    """'2x1', or '2x1 col' when the record names its rank mapping (row or col)."""
    if "workers" in params:
        return f"1+{params['workers']}"
    m = params.get("mapping")
    grid = "x".join(str(params.get(k)) for k in ("P", "Q", "R") if k in params)
    return grid + (f" {m}" if m else "")


def _row(rec: dict, base: dict, kind: str, problem: str, px: Proxy) -> dict:
    """One scaling row of `rec` against `base` (the reference run: T_b on p_b ranks)."""
    p, p0 = nranks(rec["params"]), nranks(base["params"])
    t, t0 = value(rec), value(base)
    prm = rec["params"]
    if kind == "strong":
        speedup = t0 / t                    # relative to the baseline's rank count p0
        eff = p0 * t0 / (p * t)
    else:
        speedup = p / p0 * t0 / t           # scaled speed-up: p/p0 times the work per time
        eff = t0 / t
    s = rec.get("stats") or {}
    return {"scaling": kind, "problem": problem, "variant": px.variant_name(prm),
            "halo": prm.get("halo"), "sum": prm.get("sum"), "branch": int(prm.get("branch") or 0),
            "nranks": p, "P": prm.get("P"), "Q": prm.get("Q"),
            "grid": _grid(prm), "mapping": prm.get("mapping"), "time_us": t,
            "ci_low": s.get("ci_low", t), "ci_high": s.get("ci_high", t),
            "speedup": speedup, "efficiency": eff, "base_nranks": p0,
            "base_grid": _grid(base["params"]), "base_variant": px.variant_name(base["params"]),
            "base": ("1 rank" if p0 == 1 else f"{p0} ranks")
                    + ("" if px.variant_key(base["params"]) == px.variant_key(prm)
                       else f", variant {px.variant_name(base['params'])}"),
            "record": rec}


def problem_name(params: dict) -> str:
    """'96x64' (strong scaling: the global grid) or '3072 points/rank' (weak scaling: the block),
    with ', continents' when the grid has land; 'T21 L4' for the spectral model."""
    if "truncation" in params:
        return f"T{params.get('truncation')} L{params.get('levels')}"
    if "particles" in params:
        return f"{params.get('cycles')} cycles x {params.get('particles')} particles"
    if "nlon" in params:
        return f"{params.get('nlon')}x{params.get('nlat')} L{params.get('levels')}"
    land = params.get("land")
    land = f", {land}" if land not in (None, "none") else ""
    noun = "cells" if "nz" in params else "points"
    if params.get("scaling") == "weak":
        return f"{points_per_rank(params)} {noun}/rank{land}"
    return "x".join(str(params.get(k)) for k in ("nx", "ny", "nz") if k in params) + land


def points_per_rank(params: dict) -> int:
    """Grid points (cells of a 3-D grid) per rank."""
    points = int(params.get("nx") or 0) * int(params.get("ny") or 0) * int(params.get("nz") or 1)
    return round(points / nranks(params))


def _scaling(records: Iterable[dict], benchmark: str, kind: str) -> List[dict]:
    """Rows of one kind of scaling: per series (problem and variant) the best grid at each rank
    count against the series' reference run (see strong_scaling)."""
    px = proxy(benchmark)
    series: Dict[tuple, List[dict]] = {}
    ones: Dict[tuple, List[dict]] = {}
    for r in timed(records, benchmark):
        prm = r["params"]
        if prm.get("scaling", "strong") != kind:
            continue
        problem = (px.problem_key(prm) if kind == "strong"
                   else (points_per_rank(prm), prm.get("land")))
        series.setdefault((problem, px.variant_key(prm)), []).append(r)
        if nranks(prm) == 1:
            ones.setdefault(problem, []).append(r)
    rows = []
    for (problem, _), recs in series.items():
        best = _best_per_count(recs)
        if 1 in best:
            base = best[1]
        elif problem in ones:               # the fastest one-rank run of another variant
            base = min(ones[problem], key=value)
        else:
            base = next(iter(best.values()))
        rows += [_row(r, base, kind, problem_name(r["params"]), px) for r in best.values()]
    return sorted(rows, key=lambda x: (x["problem"], x["variant"], x["nranks"]))


def strong_scaling(records: Iterable[dict], benchmark: str = "barotropic") -> List[dict]:
    """Rows for every strong-scaling problem (nx x ny, land), variant and rank count, from the
    best process grid (and rank mapping) at that count: time_us (median per iteration, with
    ci_low/ci_high), speedup T_b / T_p and efficiency p_b T_b / (p T_p) against a reference run
    b: the variant's own one-rank run; else the fastest one-rank run of the same problem (with
    one rank the variants differ little: no partner to exchange with); else the variant's
    smallest rank count. base_nranks, base_variant and "base" (text) say which. Records without
    params "scaling" count as strong scaling."""
    return _scaling(records, benchmark, "strong")


def weak_scaling(records: Iterable[dict], benchmark: str = "barotropic") -> List[dict]:
    """Rows for every weak-scaling series (points per rank nx*ny/p, land, variant) and rank
    count, from the best process grid: efficiency T_b / T_p per iteration and the scaled
    speed-up p/p_b * T_b / T_p, against a reference run chosen as in strong_scaling."""
    return _scaling(records, benchmark, "weak")


def overhead_rows(records: Iterable[dict], benchmark: str = "barotropic",
                  tol: float = CLOSURE_TOL) -> List[dict]:
    """The overhead breakdown of every strong-scaling row (best grid per variant and rank count)
    that has phase timers, against the one-rank run of the same problem and variant (or of the
    same problem with another variant when the variant has none: "baseline" says which).
    Problems without any one-rank run have no rows. Each row is a strong_scaling row plus
    "breakdown" (Breakdown), "closes" (within tol) and "baseline" (text)."""
    px = proxy(benchmark)
    recs = list(records)
    ones: Dict[tuple, List[dict]] = {}
    for r in timed(recs, benchmark):
        prm = r["params"]
        if nranks(prm) == 1 and prm.get("scaling", "strong") == "strong" and record_arrays(r):
            ones.setdefault(px.problem_key(prm), []).append(r)
    out = []
    for row in strong_scaling(recs, benchmark):
        prm = row["record"]["params"]
        cands = ones.get(px.problem_key(prm), [])
        if not cands:
            continue
        same = [c for c in cands if px.variant_key(c["params"]) == px.variant_key(prm)]
        ref = min(same or cands, key=value)
        base = baseline_of(ref)
        bd = record_breakdown(row["record"], base) if base else None
        if bd is None:
            continue
        out.append({**row, "breakdown": bd, "closes": bd.closes(tol), "tol": tol,
                    "baseline": "1 rank" if same
                    else f"1 rank, variant {px.variant_name(ref['params'])}"})
    return out


def best_per_rung(records: Iterable[dict], benchmark: str) -> List[dict]:
    """The seeds' curves against processor count: per problem (strong: the global problem;
    weak: the block per rank) and rank count, the best variant's time, the runner-up's and
    the margin (as `tune` reports), and the efficiency of the best against the best at the
    series' smallest rank count (strong: p0 T0 / (p T); weak: T0 / T)."""
    records = records if isinstance(records, list) else list(records)
    out: List[dict] = []
    for kind in ("strong", "weak"):
        groups: Dict[tuple, List[dict]] = {}
        for row in _scaling(records, benchmark, kind):
            groups.setdefault((row["problem"], row["nranks"]), []).append(row)
        series: Dict[str, List[dict]] = {}
        for (problem, p), rows in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1])):
            rows.sort(key=lambda r: r["time_us"])
            best, second = rows[0], (rows[1] if len(rows) > 1 else None)
            series.setdefault(problem, []).append({
                "scaling": kind, "problem": problem, "nranks": p, "time_us": best["time_us"],
                "best": best["variant"], "grid": best["grid"], "record": best["record"],
                "runner_up": second["variant"] if second else None,
                "margin": second["time_us"] / best["time_us"] - 1 if second else None})
        for rows in series.values():
            t0, p0 = rows[0]["time_us"], rows[0]["nranks"]
            for r in rows:
                r["efficiency"] = (p0 * t0 / (r["nranks"] * r["time_us"]) if kind == "strong"
                                   else t0 / r["time_us"])
            out += rows
    return out


def seed_axis_rows(records: Iterable[dict], benchmark: str, axis) -> List[dict]:
    """best_per_rung's rows with `axis` (hpceval.catalog.registry.SeedAxis) of each rung's best
    variant: the record of axis.metric with the time record's params, as the seed drew it
    ("value"; per processor: over the rung's ranks; inverse: scale / value). A rung whose
    best variant has no such record is left out."""
    records = records if isinstance(records, list) else list(records)
    by_params = {json.dumps(r.get("params") or {}, sort_keys=True): r
                 for r in select(records, benchmark, axis.metric) if value(r) is not None}
    out = []
    for row in best_per_rung(records, benchmark):
        rec = by_params.get(json.dumps(row["record"]["params"], sort_keys=True))
        v = None if rec is None else float(value(rec))
        if v is None or (axis.per == "inverse" and v <= 0):
            continue
        shown = (v / row["nranks"] if axis.per == "processor"
                 else axis.scale / v if axis.per == "inverse" else v)
        out.append({**row, "value": shown, "rate_record": rec})
    return out
