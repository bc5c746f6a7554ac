"""Tuned best against tuned best: for each tunable proxy or kernel (`tunes=` in its declaration:
hpceval.analysis.tune.TUNABLE), each problem and each rank count, every machine's own fastest
variant (process grid, halo update, global sum, transpose, mapping), named, and its time as a
ratio to the reference machine's best. Two machines whose best grids differ are compared at their
best, as the Cray X1 and ORNL studies compared platforms, not at one shared variant.

And the ORNL study's Fig. 4 view: per platform, every variant's (time - min) / min, min the
platform's own best variant of that problem and rank count: how much choosing badly costs on
each machine."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from hpceval.analysis import decide as dec
from hpceval.analysis.compare import deficits
from hpceval.analysis.headlines import select, value
from hpceval.analysis.scaling import nranks
from hpceval.analysis.tune import TUNABLE, choice_name

Run = Dict[str, Any]
Group = Tuple[str, str, int]       # (benchmark, problem as text, ranks)


def _problem_text(bench: str, params: Dict[str, Any]) -> str:
    return " ".join(f"{k}={params.get(k)}" for k in TUNABLE[bench].problem if k in params)


def variants(run: Run) -> Dict[Group, Dict[str, Dict[str, Any]]]:
    """{(bench, problem, ranks): {variant name: record}} of a run's tunable proxies (traced
    launches left out: tracing slows them)."""
    out: Dict[Group, Dict[str, Dict[str, Any]]] = {}
    for bench, t in TUNABLE.items():
        for r in select(run.get("records") or [], bench, t.metric):
            if value(r) and not r["params"].get("traced"):
                key = (bench, _problem_text(bench, r["params"]), nranks(r["params"]))
                name = choice_name(bench, r["params"])
                old = out.setdefault(key, {}).get(name)
                if old is None or _better(r, old):
                    out[key][name] = r
    return out


def _better(a: Dict[str, Any], b: Dict[str, Any]) -> bool:
    return value(a) > value(b) if a.get("better") == "higher" else value(a) < value(b)


def _best(found: Dict[str, Dict[str, Any]]) -> Tuple[str, Dict[str, Any]]:
    name = next(iter(found))
    for n, r in found.items():
        if _better(r, found[name]):
            name = n
    return name, found[name]


def _ratio(rec: Dict[str, Any], ref: Optional[Dict[str, Any]]) -> Optional[float]:
    return value(rec) / value(ref) if ref is not None and value(ref) else None


def tuned_best(runs: List[Run], reference: int = 0,
               tolerance: float = dec.TOLERANCE) -> List[Dict[str, Any]]:
    """One row per (benchmark, problem, ranks) measured by at least two runs: {benchmark,
    problem, ranks, metric, unit, cells: [None, or {variant, value, candidates, ratio, verdict}
    per run]}; ratio = the run's best / the reference's best, verdict as `compare` gives it
    (analysis/decide.py)."""
    per_run = [variants(r) for r in runs]
    groups = sorted({k for v in per_run for k in v}, key=lambda k: (k[0], k[1], k[2]))
    rows = []
    for key in groups:
        found = [v.get(key) for v in per_run]
        if sum(f is not None for f in found) < 2:
            continue
        bests = [_best(f) if f else None for f in found]
        ref = bests[reference][1] if bests[reference] else None
        cells = []
        for i, (b, f) in enumerate(zip(bests, found)):
            if b is None:
                cells.append(None)
                continue
            verdict = "reference" if i == reference else (
                dec.decide(ref, b[1], tolerance)["verdict"] if ref is not None else None)
            cells.append({"variant": b[0], "value": value(b[1]), "candidates": len(f),
                          "ratio": None if i == reference else _ratio(b[1], ref),
                          "verdict": verdict})
        some = next(b[1] for b in bests if b)
        rows.append({"benchmark": key[0], "problem": key[1], "ranks": key[2],
                     "metric": some.get("metric"), "unit": some.get("unit") or "",
                     "cells": cells})
    return rows


def over_best(runs: List[Run]) -> List[Dict[str, Any]]:
    """ORNL Fig. 4: per (benchmark, problem, ranks) and variant, each run's (time - min) / min
    against that run's own best variant (None where the run did not measure the variant).
    Groups with at least two variants on some run."""
    per_run = [variants(r) for r in runs]
    rows = []
    for key in sorted({k for v in per_run for k in v}, key=lambda k: (k[0], k[1], k[2])):
        found = [v.get(key) or {} for v in per_run]
        if max(len(f) for f in found) < 2:
            continue
        over: List[Dict[str, float]] = []
        for f in found:
            names = list(f)
            if not names:
                over.append({})
                continue
            better = f[names[0]].get("better") or "lower"
            over.append(dict(zip(names, deficits([value(f[n]) for n in names], better))))
        for name in sorted({n for f in found for n in f}):
            rows.append({"benchmark": key[0], "problem": key[1], "ranks": key[2],
                         "variant": name, "over_best": [o.get(name) for o in over]})
    return rows


def speedup_by_size(rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """EV7 Fig. 4.2: each machine's speed-up over the reference (the reference's best time / the
    machine's best: above 1 is faster) against problem size, from tuned_best's rows, for each
    (benchmark, ranks) measured at two problems or more: [{benchmark, ranks, problem,
    speedup: [float or None per run]}]."""
    groups: Dict[Tuple[str, int], List[Dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["benchmark"], r["ranks"]), []).append(r)
    out = []
    for (bench, ranks), found in groups.items():
        if len(found) < 2:
            continue
        for r in found:
            out.append({"benchmark": bench, "ranks": ranks, "problem": r["problem"],
                        "speedup": [None if c is None else 1.0 if c["verdict"] == "reference"
                                    else (1.0 / c["ratio"] if c["ratio"] else None)
                                    for c in r["cells"]]})
    return out
