"""One point of a run against the reference's: the ratio, its 95% interval, and a verdict.

The ratio is other / reference of the point's own statistic (its `statistic`: the median for
most). Its 95% interval comes from the samples:

- **bootstrap** (both points carry their samples, 6 or more each): the percentile bootstrap of
  the ratio of the two statistics, each side resampled on its own (scipy.stats.bootstrap, 2,000
  resamples, a fixed seed: the same two runs always give the same interval). A point of more
  than 1,000 samples carries 1,000 order statistics of them: its side is resampled from those,
  a slightly wider interval than all its samples would give.
- **stored CIs** (a point stored before samples were kept): from the two medians' stored 95%
  CIs on a log scale, each CI's half-width taken as 1.96 standard errors of the log median,
  the two combined in quadrature.
- **run-to-run spread** (the store holds 3 or more runs of the reference's machine with the
  point): one launch's samples do not show how far the next launch lands (on a shared VM,
  5-30% against 1-3%: docs/repeatability.md), so the interval is widened, where that is wider,
  to the ratio x exp(+-t sqrt(2) s), s the point's run-to-run spread (analysis/runspread.py).
  Without it, "slower" says this run was slower, not that the machine or its software is.

The verdict holds the interval against the tolerance band [1 - t, 1 + t] (t = `tolerance`,
default 5%): **same** when the interval lies inside it; **slower** or **faster** when it lies
wholly beyond it, by the point's direction (a latency ratio above 1 + t is slower, a bandwidth
ratio above it faster); else **undecided**, with the reason: the interval wider than the band
(more samples, or a quieter machine, would decide), or straddling one of its edges (the
difference is about the tolerance). A disturbed or unconverged point is decided from its samples
like any other: what a disturbance did shows in the interval. Undecided whatever the samples:
a point at a subtraction floor, a statistic that is not above 0 (no ratio), and fewer than 6
samples on a side. A simulated point against a real one is **not comparable** (docs/simulate.md):
no verdict at all, only the ratio: a twin's error against the machine it models, never a
regression.
"""
from __future__ import annotations

import inspect
import math
from functools import lru_cache
from typing import Any, Dict, List, Optional, Sequence

from hpceval.analysis import runspread
from hpceval.analysis import significance as sig
from hpceval.analysis.headlines import value
from hpceval.quality import at_floor, disturbed
from hpceval.simulate import mark

Record = Dict[str, Any]

FASTER, SLOWER, SAME, UNDECIDED = "faster", "slower", "same", "undecided"
NOT_COMPARABLE = sig.NOT_COMPARABLE
VERDICTS = (FASTER, SLOWER, SAME, UNDECIDED, NOT_COMPARABLE)
TOLERANCE = 0.05
LEVEL = 0.95
RESAMPLES = 2000
MIN_SAMPLES = 6          # the harness's fewest samples with a 95% CI of the median
SEED = 52
BOOTSTRAP, STORED_CIS, RUNS = "bootstrap", "stored CIs", "run-to-run spread"
METHODS = {BOOTSTRAP: f"percentile bootstrap of the ratio, {RESAMPLES:,} resamples of each "
                      "run's samples",
           STORED_CIS: "from the two medians' stored 95% CIs (log scale, no samples stored)",
           RUNS: "widened, where wider, to ratio x exp(+-t(0.975, n-1) x sqrt(2) x s): s the "
                 "standard deviation of the point's log value over n runs of the reference's "
                 "machine in the store (3 or more)"}
_Z = 1.959963984540054   # the standard normal's 97.5% quantile
# numpy and scipy are imported when a point is decided: `show` and the command line's start
# read the verdicts' names from here without them.


@lru_cache(maxsize=None)
def _rng_keyword() -> str:
    """scipy 1.15 names the generator `rng`; earlier versions `random_state`."""
    from scipy import stats
    return "rng" if "rng" in inspect.signature(stats.bootstrap).parameters else "random_state"


def _bootstrap(a: List[float], b: List[float], statistic: str) -> tuple:
    import numpy as np
    from scipy import stats
    f = {"mean": np.mean, "min": np.min, "max": np.max}.get(statistic, np.median)

    def ratio(x, y, axis=-1):
        return f(y, axis=axis) / f(x, axis=axis)
    data = (np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        res = stats.bootstrap(data, ratio, vectorized=True, paired=False, n_resamples=RESAMPLES,
                              confidence_level=LEVEL, method="percentile",
                              **{_rng_keyword(): np.random.default_rng(SEED)})
    ci = res.confidence_interval
    return float(ci.low), float(ci.high)


def _log_se(rec: Record) -> Optional[float]:
    s = rec.get("stats") or {}
    lo, hi = s.get("ci_low"), s.get("ci_high")
    if lo is None or hi is None or min(lo, hi) <= 0:
        return None
    return abs(math.log(hi) - math.log(lo)) / (2 * _Z)


def _from_cis(base: Record, other: Record, ratio: float) -> Optional[tuple]:
    sa, sb = _log_se(base), _log_se(other)
    if sa is None or sb is None:
        return None
    half = _Z * math.hypot(sa, sb)
    return ratio * math.exp(-half), ratio * math.exp(half)


def _n(rec: Record) -> int:
    return int((rec.get("stats") or {}).get("n") or 0)


def _pct(x: float) -> str:
    return f"{100 * x:g}%"


def _spread(base: Record, other: Record) -> str:
    """'CV 2.1% in the reference, 14% here; this run disturbed (preemptions)': what widened an
    interval."""
    cvs = []
    for r in (base, other):
        s = r.get("stats") or {}
        cv = s.get("cv")
        if cv is None and s.get("mean") and s.get("stddev") is not None:
            cv = s["stddev"] / abs(s["mean"])
        cvs.append("?" if cv is None else f"{100 * cv:.2g}%")
    notes = [f"CV {cvs[0]} in the reference, {cvs[1]} here"]
    for who, r in (("the reference", base), ("this run", other)):
        why = disturbed(r)
        if why:
            notes.append(f"{who} disturbed ({sig.reason_kind(why)})")
        elif r.get("converged") is False:
            notes.append(f"{who} unconverged")
    return "; ".join(notes)


def _undecided(ratio: Optional[float], why: str, method: Optional[str] = None,
               interval: Optional[tuple] = None, verdict: str = UNDECIDED) -> Dict[str, Any]:
    return {"verdict": verdict, "ratio": ratio, "low": interval[0] if interval else None,
            "high": interval[1] if interval else None, "method": method, "why": why}


def decide(base: Record, other: Record, tolerance: float = TOLERANCE,
           spread: Optional[runspread.Spread] = None) -> Dict[str, Any]:
    """{verdict, ratio, low, high, method, why} of `other` against `base` (module docstring):
    why is None unless the verdict is undecided or not comparable. `spread`: the point's
    run-to-run spread on the reference's machine (analysis/runspread.py), which widens the
    interval where it is wider."""
    if mark.mismatch(base, other):
        va, vb = value(base), value(other)
        ratio = float(vb) / float(va) if va and vb and va > 0 and vb > 0 else None
        return _undecided(ratio, "simulated against real: the ratio is a model's error, never "
                          "a verdict", verdict=NOT_COMPARABLE)
    for who, r in (("the reference", base), ("this run", other)):
        if at_floor(r):
            return _undecided(None, f"{who} is at the subtraction floor: not a measurement")
    va, vb = value(base), value(other)
    if va is None or vb is None or va <= 0 or vb < 0:
        return _undecided(None, "no ratio: a value not above 0")
    ratio = float(vb) / float(va)
    few = min(_n(base), _n(other))
    if few < MIN_SAMPLES:
        return _undecided(ratio, f"{few} samples: an interval needs {MIN_SAMPLES} on each side")
    a, b = base.get("samples") or [], other.get("samples") or []
    if min(len(a), len(b)) >= MIN_SAMPLES:
        method, interval = BOOTSTRAP, _bootstrap(a, b, base.get("statistic") or "median")
    else:
        method, interval = STORED_CIS, _from_cis(base, other, ratio)
    if interval is None or not all(map(math.isfinite, interval)):
        return _undecided(ratio, "no interval: no samples stored and no CI above 0", method)
    lo, hi = interval
    wide = None
    if spread is not None:         # the machine's run-to-run spread, where it is the wider
        h = spread.half_width()
        wide = lo > ratio * math.exp(-h) or hi < ratio * math.exp(h)
        lo, hi = min(lo, ratio * math.exp(-h)), max(hi, ratio * math.exp(h))
        method = f"{method} + {RUNS}"
    up, down = 1 + tolerance, 1 - tolerance
    if down <= lo and hi <= up:
        verdict = SAME
    elif lo > up or hi < down:
        higher_is_better = (other.get("better") or "lower") == "higher"
        verdict = FASTER if (lo > up) == higher_is_better else SLOWER
    else:
        band = f"±{_pct(tolerance)}"
        if hi - lo > up - down and wide:
            why = f"the interval is wider than the {band} band: this point spreads " \
                  f"{runspread.describe(spread)}, too much to decide {band} from one run each"
        elif hi - lo > up - down:
            why = f"the interval is wider than the {band} band ({_spread(base, other)})"
        else:
            edge = f"+{_pct(tolerance)}" if hi > up else f"-{_pct(tolerance)}"
            why = f"the interval straddles the {edge} edge of the {band} band: a difference " \
                  "about the tolerance"
        return _undecided(ratio, why, method, (lo, hi))
    return {"verdict": verdict, "ratio": ratio, "low": lo, "high": hi, "method": method,
            "why": None}


def _num(x: float) -> str:
    return f"{x:.3f}" if 0.1 <= abs(x) < 10 else f"{x:.3g}"


def ratio_text(ratio: Optional[float], interval: Optional[Sequence[float]]) -> str:
    """'x1.200 (1.194-1.207)': a ratio to the reference and its 95% interval ('' without a
    ratio)."""
    if ratio is None:
        return ""
    return f"x{_num(ratio)}" + ("" if not interval else
                                f" ({_num(interval[0])}-{_num(interval[1])})")


def counts(verdicts: Sequence[str]) -> Dict[str, int]:
    out = {v: 0 for v in VERDICTS}
    for v in verdicts:
        if v in out:
            out[v] += 1
    return out


def uniform_shift(verdicts: List[str], benchmarks: List[str]) -> Optional[str]:
    """SLOWER or FASTER when nearly every decided difference of a run goes that way over
    several benchmarks (significance.uniform_shift's rule), else None."""
    as_sig = {FASTER: sig.BETTER, SLOWER: sig.WORSE}
    side = sig.uniform_shift([as_sig.get(v, v) for v in verdicts], benchmarks)
    return {sig.BETTER: FASTER, sig.WORSE: SLOWER}.get(side)
