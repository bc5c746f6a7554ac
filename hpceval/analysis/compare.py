"""Compare runs (possibly of different machines) metric by metric.

Every shared point of a later run gets its ratio to the first run's, with a 95% interval and a
verdict (faster, slower, same within the tolerance, undecided with the reason:
hpceval.analysis.decide).

Every metric point the runs share (same benchmark, metric and params) is normalised by the best
run, as the SP/AlphaServer paper normalises each machine's time by the fastest ((t - min) / min):
the deficit is (value - best) / best when lower is better and (best - value) / best when higher is
better, so 0 is the best run and +0.25 means 25% worse, whatever the metric's direction.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from hpceval.analysis import decide as dec
from hpceval.analysis import runspread
from hpceval.analysis import significance as sig
from hpceval.analysis.headlines import headlines, value
from hpceval.quality import disturbed
from hpceval.simulate import mark

Key = runspread.Key
record_key = runspread.record_key
_by_key = runspread.points


def deficits(values: List[float], better: str) -> List[Optional[float]]:
    """(value - best) / best towards the worse side; None where best is 0 (nothing to scale by)."""
    v = np.asarray(values, dtype=float)
    best = v.min() if better == "lower" else v.max()
    if best == 0:
        return [0.0 if x == best else None for x in v]
    d = (v - best) / abs(best) if better == "lower" else (best - v) / abs(best)
    return [float(x) for x in d]


def _row(label: str, recs: List[Dict[str, Any]], decided: Dict[int, List[Dict[str, Any]]],
         tolerance: float, spread: Optional[runspread.Spread] = None) -> Dict[str, Any]:
    better = recs[0].get("better") or "lower"
    vals = [float(value(r)) for r in recs]
    d = deficits(vals, better)
    # Each run against the first (the reference): a ratio with its interval and a verdict
    # (analysis/decide.py); a deficit alone says nothing about whether the difference is real.
    # A point shared by the headline and every point is decided once.
    if id(recs[0]) not in decided:
        decided[id(recs[0])] = [dec.decide(recs[0], r, tolerance, spread) for r in recs[1:]]
    ds = decided[id(recs[0])]
    return {"label": label, "benchmark": recs[0]["benchmark"], "metric": recs[0]["metric"],
            "params": recs[0].get("params") or {}, "unit": recs[0].get("unit") or "",
            "statistic": recs[0].get("statistic") or "median", "better": better,
            "values": vals, "deficits": d,
            "best": [i for i, x in enumerate(d) if x == 0.0],
            "verdicts": ["baseline"] + [x["verdict"] for x in ds],
            "ratios": [None] + [x["ratio"] for x in ds],
            "intervals": [None] + [None if x["low"] is None else [x["low"], x["high"]]
                                   for x in ds],
            "methods": [None] + [x["method"] for x in ds],
            "why": [None] + [x["why"] for x in ds],
            "run_spread": None if spread is None else {"sd_log": spread.sd_log,
                                                          "runs": spread.runs},
            "disturbed": [bool(disturbed(r)) for r in recs],
            "simulated": [mark.record_simulated(r) for r in recs]}


def model_error(rows: List[Dict[str, Any]], i: int) -> Optional[Dict[str, Any]]:
    """Run i's error as a model of the reference (or the reference's as a model of run i: one
    simulated, the other real): over the points with a ratio, the simulated value over the real
    one less 1. {points, median_abs, within_10, within_20, worst: [{label, params, error}] the
    three largest}; None when no point has one."""
    errs = [((r["ratios"][i] if r["simulated"][i] else 1 / r["ratios"][i]) - 1, r)
             for r in rows if r["verdicts"][i] == dec.NOT_COMPARABLE and r["ratios"][i]]
    if not errs:
        return None
    size = np.abs([e for e, _ in errs])
    worst = sorted(errs, key=lambda x: -abs(x[0]))[:3]
    return {"points": len(errs), "median_abs": float(np.median(size)),
            "within_10": int(np.sum(size <= 0.10)), "within_20": int(np.sum(size <= 0.20)),
            "worst": [{"label": r["label"], "params": r["params"], "error": float(e)}
                      for e, r in worst]}


def compare(runs: List[Dict[str, Any]], tolerance: float = dec.TOLERANCE,
            history: Optional[List[Dict[str, Any]]] = None) -> Dict[str, Any]:
    """{"runs": [...], "tolerance", "interval", "headline": rows, "rows": rows, "summary": per
    run}. A row is one metric point present in every run; headline rows are the machine-card
    figures of the first run that every run also has. A metric whose runs disagree on the
    better direction is left out. `history`: runs of the reference's machine (the reference
    among them) whose run-to-run spread widens the intervals (analysis/runspread.py)."""
    spreads = runspread.spreads(history or [])
    maps = [_by_key(r) for r in runs]
    shared = [k for k in maps[0] if all(k in m for m in maps[1:])] if maps else []
    rows: List[Dict[str, Any]] = []
    decided: Dict[int, List[Dict[str, Any]]] = {}
    for k in shared:
        recs = [m[k] for m in maps]
        if len({r.get("better") for r in recs}) == 1:
            rows.append(_row(f"{k[0]} {k[1]}", recs, decided, tolerance, spreads.get(k)))
    head = []
    for h in headlines(runs[0].get("records") or []) if runs else []:
        k = record_key(h["record"])
        if all(k in m for m in maps) and len({m[k].get("better") for m in maps}) == 1:
            head.append(_row(h["label"], [m[k] for m in maps], decided, tolerance,
                             spreads.get(k)))
    summary = []
    base_hash = ((runs[0].get("fingerprint") or {}).get("hash") if runs else None)
    for i, run in enumerate(runs):
        ds = [r["deficits"][i] for r in rows if r["deficits"][i] is not None]
        verdicts = [r["verdicts"][i] for r in rows]
        same_machine = bool(base_hash) and (run.get("fingerprint") or {}).get("hash") == base_hash
        summary.append({"verdicts": dec.counts([v for v in verdicts if v != "baseline"]),
                        "quality": sig.run_quality(run.get("records") or []),
                        "same_machine": same_machine,
                        # On one machine, every difference going one way is the run, not a change.
                        "uniform": dec.uniform_shift(verdicts, [r["benchmark"] for r in rows])
                                   if i and same_machine else None,
                        "run": run.get("id"), "uuid": run.get("uuid"),
                        "hostname": (run.get("fingerprint") or {}).get("hostname"),
                        "tags": list(run.get("tags") or []), "shared": len(ds),
                        "model_error": model_error(rows, i) if i else None,
                        "best_in": sum(1 for x in ds if x == 0.0),
                        "median_deficit": float(np.median(ds)) if ds else None,
                        "geomean_ratio": float(np.exp(np.mean(np.log1p(ds)))) if ds else None})
    return {"runs": [r.get("id") for r in runs], "tolerance": tolerance,
            "interval": {"level": dec.LEVEL, "methods": dec.METHODS,
                         "history": [r.get("id") for r in history or []],
                         "points_with_spread": sum(1 for r in rows if r["run_spread"])},
            "headline": head, "rows": rows, "summary": summary}
