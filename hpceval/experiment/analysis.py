"""Which differences between an experiment's variants are significant.

Each variant of a point has several samples: its record's median in every round (and, for
copies, of every copy). Every variant is compared with the baseline (the first variant) by the
two-sided Mann-Whitney U test on those samples (scipy.stats.mannwhitneyu, exact for small
samples): significant when p < ALPHA. Rank-based, so one disturbed round cannot make a
difference, and it needs no normality; with fewer than 4 samples on a side it can never reach
p < 0.05, which the verdict says. The effect is the ratio of the medians."""
from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from hpceval.analysis import value

ALPHA = 0.05
MIN_SAMPLES = 4        # the fewest per side with which an exact two-sided U test reaches p < 0.05

Record = Dict[str, Any]


def settings(run: dict) -> Optional[Dict[str, Any]]:
    """The experiment a run measured (kind, benchmark, variants, rounds), or None."""
    return ((run.get("settings") or {}).get("experiment")) or None


def tag(rec: Record) -> Optional[Dict[str, Any]]:
    return (rec.get("extra") or {}).get("experiment") or rec.get("experiment")


def point_labels(points: List[Dict[str, Any]]) -> List[str]:
    """Each point named by the parameters that differ between them ('all' when one point)."""
    keys = sorted({k for p in points for k in p})
    varying = [k for k in keys if len({json.dumps(p.get(k)) for p in points}) > 1]
    return [" ".join(f"{k}={p.get(k)}" for k in varying) or "all" for p in points]


Key = Tuple[str, str]          # (metric, point as JSON)


def _key(rec: Record, drop=()) -> Key:
    params = {k: v for k, v in (rec.get("params") or {}).items() if k not in drop}
    return rec["metric"], json.dumps(params, sort_keys=True)


def _varying(recs: List[Record]) -> Dict[str, set]:
    """Per metric, the parameters whose values differ between variants (a job's process grid
    P x Q follows its ranks): a combined sample lays them aside."""
    seen: Dict[Tuple[str, str], Dict[str, set]] = {}
    for rec in recs:
        for k, v in (rec.get("params") or {}).items():
            seen.setdefault((rec["metric"], k), {}).setdefault(str(tag(rec)["variant"]),
                                                              set()).add(json.dumps(v))
    variants = {str(tag(r)["variant"]) for r in recs}
    out: Dict[str, set] = {}
    for (metric, k), by_variant in seen.items():
        values = list(by_variant.values())
        if len(by_variant) < len(variants) or any(v != values[0] for v in values):
            out.setdefault(metric, set()).add(k)
    return out


def _combined(recs: List[Record]) -> Tuple[Dict[Key, Dict[str, List[float]]], Dict[Key, Record]]:
    """One sample per variant and round: every launch's best record of a point (its best
    process grid), summed over the launches that ran together. Rates only: times do not add."""
    recs = [r for r in recs if r.get("better") == "higher"]
    drop = _varying(recs)
    best: Dict[tuple, float] = {}
    firsts: Dict[Key, Record] = {}
    for rec in recs:
        t, key = tag(rec), _key(rec, drop.get(rec["metric"], ()))
        firsts.setdefault(key, rec)
        slot = (key, str(t["variant"]), t["round"], t.get("copy", 1))
        best[slot] = max(best.get(slot, float("-inf")), float(value(rec)))
    sums: Dict[tuple, float] = {}
    for (key, variant, rnd, _copy), v in best.items():
        sums[(key, variant, rnd)] = sums.get((key, variant, rnd), 0.0) + v
    out: Dict[Key, Dict[str, List[float]]] = {}
    for (key, variant, _rnd), v in sums.items():
        out.setdefault(key, {}).setdefault(variant, []).append(v)
    return out, firsts


def samples(run: dict) -> Tuple[Dict[Key, Dict[str, List[float]]], Dict[Key, Record]]:
    """(metric, point) -> variant -> samples, in record order; and a record of each point
    (its unit and direction)."""
    recs = [r for r in run.get("records") or [] if tag(r) and value(r) is not None]
    if (settings(run) or {}).get("combine"):
        return _combined(recs)
    out: Dict[Key, Dict[str, List[float]]] = {}
    firsts: Dict[Key, Record] = {}
    for rec in recs:
        key = _key(rec)
        firsts.setdefault(key, rec)
        out.setdefault(key, {}).setdefault(str(tag(rec)["variant"]), []).append(float(value(rec)))
    return out, firsts


@dataclass
class Row:
    metric: str
    unit: str
    better: str
    point: Dict[str, Any]
    variant: str
    n: int
    median: float
    ratio: float               # median / the baseline's median
    p: Optional[float]         # None for the baseline itself
    verdict: str
    samples: List[float]
    label: str = ""            # the point, by the parameters that differ between points


def _verdict(base: List[float], xs: List[float], ratio: float, better: str) -> Tuple[Optional[float], str]:
    from scipy.stats import mannwhitneyu
    if min(len(base), len(xs)) < MIN_SAMPLES:
        p = float(mannwhitneyu(xs, base, alternative="two-sided").pvalue) if base and xs else None
        return p, f"too few samples (n < {MIN_SAMPLES}: more --rounds)"
    p = float(mannwhitneyu(xs, base, alternative="two-sided").pvalue)
    if p >= ALPHA:
        return p, "no significant difference"
    good = (ratio > 1) == (better == "higher")
    return p, f"significantly {'better' if good else 'worse'} ({(ratio - 1) * 100:+.1f}%)"


def compare(run: dict) -> List[Row]:
    """Every point's variants against the baseline, in the order of the experiment's variants."""
    exp = settings(run) or {}
    order = [str(v) for v in exp.get("variants") or []]
    values, meta = samples(run)
    rows: List[Row] = []
    for key, by_variant in values.items():
        names = [v for v in order if v in by_variant] or list(by_variant)
        rec = meta[key]
        base = by_variant[names[0]]
        base_median = statistics.median(base)
        for name in names:
            xs = by_variant[name]
            med = statistics.median(xs)
            ratio = med / base_median if base_median else float("nan")
            p, verdict = (None, "baseline") if name == names[0] else _verdict(
                base, xs, ratio, rec.get("better", "higher"))
            rows.append(Row(key[0], rec.get("unit", ""), rec.get("better", "higher"),
                            json.loads(key[1]), name, len(xs), med, ratio, p, verdict, xs))
    for metric in {r.metric for r in rows}:     # points named within their metric
        mine = [r for r in rows if r.metric == metric]
        for row, label in zip(mine, point_labels([r.point for r in mine])):
            row.label = label
    return rows


def significant(row: Row) -> bool:
    return row.p is not None and row.p < ALPHA and row.n >= MIN_SAMPLES


# Copies that ran together for less than this share of their time did not compete throughout.
LOW_OVERLAP = 0.8


def overlap_note(run: dict) -> Optional[str]:
    """Copies: how well the copies of a group overlapped, when some did poorly."""
    shares = [t["overlap"] for t in map(tag, run.get("records") or [])
              if t and t.get("copies", 1) > 1 and "overlap" in t]
    if not shares or min(shares) >= LOW_OVERLAP:
        return None
    return (f"some copies ran together for only {min(shares):.0%} of their time (start-up "
            "differs between launches): lengthen the measurement (--set budget=...) so that "
            "they compete throughout")


def main_metric(run: dict) -> Optional[str]:
    """The metric a figure shows: a throughput (simulated days per day, the talk's measure)
    where the benchmark has one, else its first rate (higher is better), else its first."""
    recs = [r for r in run.get("records") or [] if tag(r)]
    rates = [r["metric"] for r in recs if r.get("better") == "higher"]
    per_day = [m for m in rates if m.endswith("per_day")]
    return (per_day or rates or [r["metric"] for r in recs] or [None])[0]
