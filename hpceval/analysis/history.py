"""One metric over time for one machine: a value, its best and its spread per run, and the
change points in that series (a step up or down, and a rise in variability).

The detector is binary segmentation with a rank test: the split that best separates the series
into two parts (largest robust shift) is kept when the Mann-Whitney U test rejects "same
distribution" at `alpha` and the relative change of the medians is at least `threshold`; each
part is then searched again. Variability is the per-run coefficient of variation (stddev / mean of
the run's samples), searched the same way for a `var_ratio`-fold rise. The latest run alone is
tested against the runs before it (too few points for a rank test): it regressed when it is worse
than their median by more than `threshold` and by more than `k_sd` standard deviations of their
scatter, so a noisy but unchanged history is not flagged. The sample standard deviation, not a
robust one (the median absolute deviation): on a shared host the runs sit on levels minutes
apart (docs/repeatability.md), and the MAD of earlier runs mostly on one level hid the other,
so a run from it was an alert (8 of 20 clean series resampled from six quiet quick runs had one,
against 2 of 20 with the standard deviation: benchmarks/history_rates.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from hpceval.analysis import significance as sig
from hpceval.analysis.headlines import headlines, value
from hpceval.quality import disturbed
from hpceval.simulate import mark



@dataclass
class Settings:
    threshold: float = 0.10       # relative change that counts as a step / regression
    alpha: float = 0.01           # significance of a step found inside the series
    var_ratio: float = 2.0        # spread rise that counts as "more variable"
    min_segment: int = 3          # points on each side of a change point
    k_sd: float = 3.0             # latest run vs its predecessors: noise guard


@dataclass
class Change:
    kind: str                     # "step" or "variability"
    index: int                    # first point after the change
    before: float                 # median before (value, or spread for variability)
    after: float
    relative: float               # (after - before) / before
    p_value: float
    verdict: str                  # "regression", "improvement" or "noisier"/"quieter"

    def as_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Series:
    key: str                      # label shown (headline name or benchmark/metric/params)
    benchmark: str
    metric: str
    params: Dict[str, Any]
    unit: str
    better: str
    statistic: str
    points: List[Dict[str, Any]] = field(default_factory=list)
    changes: List[Change] = field(default_factory=list)
    latest: Optional[Dict[str, Any]] = None       # verdict on the latest run
    label_params: str = ""                         # params that tell same-named series apart
    stat: Optional[str] = None                     # --stat: followed instead of `statistic`


# ---------------------------------------------------------------- selecting runs and points

def machine_runs(runs: Sequence[Dict[str, Any]], fingerprint: Optional[str] = None,
                 tag: Optional[str] = None) -> List[Dict[str, Any]]:
    """Runs of one machine in time order: with `tag`, the runs carrying it; else those whose
    fingerprint hash starts with `fingerprint` (default: the latest run's machine)."""
    runs = sorted(runs, key=lambda r: (str(r.get("started") or ""), r.get("id") or 0))
    if tag is not None:
        tagged = [r for r in runs if tag in (r.get("tags") or [])]
        # A simulated platform's runs never join a real machine's series, nor the reverse: the
        # kind of the latest tagged run decides (docs/simulate.md).
        kind = bool(tagged) and bool(mark.platform(tagged[-1]))
        return [r for r in tagged if bool(mark.platform(r)) == kind]
    if fingerprint is None and runs:
        fingerprint = (runs[-1].get("fingerprint") or {}).get("hash") or ""
    return [r for r in runs if str((r.get("fingerprint") or {}).get("hash") or "").startswith(fingerprint or "")]


def stat_value(rec: Dict[str, Any], stat: Optional[str] = None) -> Optional[float]:
    """The record's own statistic (its `statistic`: the median for most, STREAM's max), or
    `stat` of store.samples.POINT_STATS (`history --stat`): p50 is the median, p90 and p99 were
    computed from the samples when stored, cv is stddev / mean (lower better whatever the
    metric). None where the point has none: p90 of a point stored before samples were kept."""
    if stat is None:
        return value(rec)
    s = rec.get("stats") or {}
    if stat == "cv" and s.get("cv") is None:     # a record not read from the store
        ok = s.get("mean") and s.get("stddev") is not None
        return float(s["stddev"]) / abs(s["mean"]) if ok else None
    return s.get("median" if stat == "p50" else stat)


def _point(run: Dict[str, Any], rec: Dict[str, Any], stat: Optional[str] = None) -> Dict[str, Any]:
    s = rec["stats"]
    best = s.get("min") if rec.get("better") == "lower" else s.get("max")
    mean = s.get("mean") or 0.0
    return {"run": run.get("id"), "uuid": run.get("uuid"), "started": run.get("started"),
            "tags": list(run.get("tags") or []), "value": float(stat_value(rec, stat)),
            "best": best, "min": s.get("min"), "max": s.get("max"), "n": s.get("n"),
            "ci_low": s.get("ci_low"), "ci_high": s.get("ci_high"),
            "converged": rec.get("converged", True), "disturbed": disturbed(rec),
            "cv": float(s.get("stddev") or 0.0) / abs(mean) if mean else 0.0}


def _has(rec: Dict[str, Any], params: Optional[Dict[str, Any]]) -> bool:
    """Whether the record has every NAME=VALUE of params (compared as text, as typed)."""
    p = rec.get("params") or {}
    return not params or all(str(p.get(k)) == str(v) for k, v in params.items())


def collect(runs: Sequence[Dict[str, Any]], benchmark: Optional[str] = None,
            metric: Optional[str] = None, params: Optional[Dict[str, Any]] = None,
            stat: Optional[str] = None) -> List[Series]:
    """Series over `runs` (already in time order). Without a benchmark: the headline figures
    (machine-card rows); with one: every params point of that benchmark (and metric). With
    `stat`, each point's `stat` is followed, and points without it are left out."""
    found: Dict[str, Series] = {}

    def add(label: str, run: Dict[str, Any], rec: Dict[str, Any]) -> None:
        # One series per exact point (benchmark, metric, params): a run with another stride or
        # rank pair is a different configuration, not a change of this one.
        ident = json.dumps([rec["benchmark"], rec["metric"], rec.get("params") or {}], sort_keys=True)
        if ident not in found:
            found[ident] = Series(label, rec["benchmark"], rec["metric"], dict(rec.get("params") or {}),
                                  "1" if stat == "cv" else rec.get("unit") or "",
                                  "lower" if stat == "cv" else rec.get("better") or "lower",
                                  rec.get("statistic") or "median", stat=stat)
        found[ident].points.append(_point(run, rec, stat))

    for run in runs:
        recs = [r for r in run.get("records") or [] if isinstance(r.get("stats"), dict)
                and stat_value(r, stat) is not None]
        if benchmark is None:
            # the headline figures, narrowed by --metric and --param like any other point
            for h in headlines(recs):
                if (metric is None or h["record"]["metric"] == metric) and _has(h["record"], params):
                    add(h["label"], run, h["record"])
            continue
        for rec in recs:
            if rec["benchmark"] != benchmark or (metric and rec["metric"] != metric):
                continue
            if _has(rec, params):
                add(f"{rec['benchmark']} {rec['metric']}", run, rec)
    out = list(found.values())
    by_key: Dict[str, List[Series]] = {}
    for x in out:
        by_key.setdefault(x.key, []).append(x)
    # Where one label covers several configurations, name the params that tell them apart.
    for x in out:
        same = by_key[x.key]
        if len(same) > 1:
            varying = sorted(k for k in set().union(*(y.params for y in same))
                             if len({str(y.params.get(k)) for y in same}) > 1)
            x.label_params = ", ".join(f"{k}={x.params.get(k)}" for k in varying)
    for x in out:
        if x.label_params:
            x.key = f"{x.key} ({x.label_params})"
    return out


# ---------------------------------------------------------------- change points

def _best_split(x: np.ndarray, lo: int, hi: int, m: int) -> Optional[int]:
    """Split index in (lo+m .. hi-m) that explains most of the variance (least squares: the
    likeliest single shift of the mean); the rank test then decides whether it is real."""
    best, where = -1.0, None
    for k in range(lo + m, hi - m + 1):
        a, b = x[lo:k], x[k:hi]
        score = len(a) * len(b) * (a.mean() - b.mean()) ** 2
        if score > best:
            best, where = score, k
    return where


def _mannwhitney_p(a: np.ndarray, b: np.ndarray) -> float:
    from scipy import stats as sps      # seconds to import: only when a test is due
    return float(sps.mannwhitneyu(a, b, alternative="two-sided").pvalue)


def change_points(x: Sequence[float], *, min_ratio: float, alpha: float, min_segment: int,
                  ratio_mode: bool = False) -> List[tuple]:
    """[(index, median before, median after, p)] by binary segmentation. A change is kept when the
    Mann-Whitney U test gives p < alpha and the medians differ by at least `min_ratio` relatively
    (ratio_mode: after/before >= min_ratio or <= 1/min_ratio)."""
    x = np.asarray(x, dtype=float)
    # Spreads change by factors: locate the split on a log scale (ranks do not care).
    loc = np.log(np.maximum(x, 1e-300)) if ratio_mode else x
    found: List[tuple] = []

    def search(lo: int, hi: int) -> None:
        if hi - lo < 2 * min_segment:
            return
        k = _best_split(loc, lo, hi, min_segment)
        if k is None:
            return
        a, b = x[lo:k], x[k:hi]
        ma, mb = float(np.median(a)), float(np.median(b))
        if ratio_mode:
            big = ma > 0 and mb > 0 and max(mb / ma, ma / mb) >= min_ratio
        else:
            big = ma != 0 and abs(mb - ma) / abs(ma) >= min_ratio
        p = _mannwhitney_p(a, b) if big else 1.0
        if big and p < alpha:
            found.append((k, ma, mb, p))
            search(lo, k)
            search(k, hi)

    search(0, len(x))
    return sorted(found)


def _before_step(prev: np.ndarray, last: float, s: Settings) -> np.ndarray:
    """prev without its last runs (fewer than min_segment) that sit beyond the threshold on the
    latest's side of the runs before them: a step too young for the change-point search is not
    scatter, and its first runs must not widen the guard that would catch its next ones."""
    k = len(prev)
    while len(prev) - k < s.min_segment - 1 and k > 3:
        base = float(np.median(prev[:k - 1]))
        if base == 0 or (prev[k - 1] - base) * (last - base) <= 0 or \
                abs(prev[k - 1] - base) <= s.threshold * abs(base):
            break
        k -= 1
    return prev[:k]


def latest_verdict(values: Sequence[float], better: str, s: Settings) -> Optional[Dict[str, Any]]:
    """The latest value against its predecessors (median and scatter)."""
    if len(values) < 2:
        return None
    prev, last = np.asarray(values[:-1], dtype=float), float(values[-1])
    prev = _before_step(prev, last, s)
    base = float(np.median(prev))
    if base == 0:
        return None
    noise = float(np.std(prev, ddof=1)) if len(prev) >= 3 else 0.0
    worse = (last - base) if better == "lower" else (base - last)
    rel = worse / abs(base)
    regressed = rel > s.threshold and worse > s.k_sd * noise
    improved = -rel > s.threshold and -worse > s.k_sd * noise
    return {"value": last, "baseline": base, "worse_by": rel, "noise": noise,
            "verdict": "regression" if regressed else "improvement" if improved else "unchanged"}


def analyse(series: Series, s: Settings = Settings()) -> Series:
    vals = [p["value"] for p in series.points]
    series.changes = []
    for k, a, b, p in change_points(vals, min_ratio=s.threshold, alpha=s.alpha,
                                    min_segment=s.min_segment):
        worse = (b > a) == (series.better == "lower")
        series.changes.append(Change("step", k, a, b, (b - a) / abs(a), p,
                                     "regression" if worse else "improvement"))
    cvs = [p["cv"] for p in series.points]
    for k, a, b, p in change_points(cvs, min_ratio=s.var_ratio, alpha=s.alpha,
                                    min_segment=s.min_segment, ratio_mode=True):
        series.changes.append(Change("variability", k, a, b, (b - a) / a, p,
                                     "noisier" if b > a else "quieter"))
    series.changes.sort(key=lambda c: (c.index, c.kind))
    # The latest run is judged against the runs since the last step before it (or all earlier
    # runs): a step several runs back must not inflate the baseline's scatter.
    steps = [c.index for c in series.changes if c.kind == "step"]
    lo = steps[-2] if len(steps) > 1 else 0
    hi = steps[-1] if steps else len(vals) - 1
    series.latest = _significant(series, series.points[lo:hi],
                                 latest_verdict(vals[lo:hi] + vals[-1:], series.better, s))
    return series


def _as_record(p: Dict[str, Any], better: str) -> Dict[str, Any]:
    return {"stats": {"ci_low": p["ci_low"], "ci_high": p["ci_high"]}, "better": better,
            "converged": p.get("converged", True), "disturbed": p.get("disturbed")}


def _significant(series: Series, base: List[Dict[str, Any]],
                 latest: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The latest verdict checked against the samples: an unconverged or disturbed latest point
    is not comparable. With fewer than 3 baseline runs there is no scatter to guard with, so the
    CIs decide: every baseline point must be comparable, and one overlapping the latest's CI
    makes the change no change."""
    if latest is None:
        return None
    last = _as_record(series.points[-1], series.better)
    why = sig.why_not_comparable(last)
    if not why and len(base) < 3 and series.stat not in (None, series.statistic):
        # the stored CIs are the median's: with no scatter of 3 earlier runs to guard with,
        # nothing says whether a change of another statistic is noise
        why = f"fewer than 3 earlier runs, and no CI of the {series.stat}"
    if not why and len(base) < 3:
        prev = [_as_record(p, series.better) for p in base]
        why = next((w for w in map(sig.why_not_comparable, prev) if w), None)
        if not why and latest["verdict"] != "unchanged" and any(
                sig.judge(p, last) == sig.SAME for p in prev):
            return {**latest, "verdict": "unchanged", "why": "CIs overlap"}
    if why:
        return {**latest, "verdict": sig.NOT_COMPARABLE, "why": why}
    return latest


def history(runs: Sequence[Dict[str, Any]], *, benchmark: Optional[str] = None,
            metric: Optional[str] = None, params: Optional[Dict[str, Any]] = None,
            fingerprint: Optional[str] = None, tag: Optional[str] = None,
            settings: Settings = Settings(), stat: Optional[str] = None) -> List[Series]:
    """Series of one machine's runs, analysed; `stat` (POINT_STATS) follows that statistic of each
    point instead of its own."""
    chosen = machine_runs(runs, fingerprint, tag)
    return [analyse(x, settings) for x in collect(chosen, benchmark, metric, params, stat)]


def regressions(series: Sequence[Series]) -> List[Series]:
    """The series whose latest run regressed beyond the threshold."""
    return [x for x in series if x.latest and x.latest["verdict"] == "regression"]
