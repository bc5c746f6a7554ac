"""Is one measurement of a point different from another, given the stored statistics?

The store keeps, per point, n, min, median, mean, max, stddev and the distribution-free 95% CI
of the median. Two medians differ significantly when their CIs do not overlap (a conservative
test: non-overlapping 95% CIs mean p < 0.01 or so for two independent medians). A point that did
not converge or was disturbed cannot be compared at all: its CI does not describe the machine.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional

from hpceval.quality import at_floor, clean, disturbed, verdict
from hpceval.simulate import mark

Record = Dict[str, Any]

BETTER, WORSE, SAME, NOT_COMPARABLE = "better", "worse", "no significant change", "not comparable"
VERDICTS = (BETTER, WORSE, SAME, NOT_COMPARABLE)

# A run whose significant differences all go one way, on the same machine and across this many
# benchmarks, was most likely slowed by something else on the machine (L1 latency does not
# regress with a software change).
UNIFORM_MIN_POINTS = 4
UNIFORM_SHARE = 0.8


# Words of quality.disturbed's reasons -> the short name a summary counts them under.
REASONS = (("preempt", "preemptions"), ("stole", "steal time"), ("steal", "steal time"),
           ("spread", "spread"))


def reason_kind(why: str) -> str:
    return next((name for word, name in REASONS if word in why), "other")


def short_verdict(rec: Record) -> str:
    """'ok', 'disturbed (preemptions)', 'unconverged (CI ±40%)', 'at the subtraction floor'."""
    why = disturbed(rec)
    return f"disturbed ({reason_kind(why)})" if why else verdict(rec)


def _ci(rec: Record) -> Optional[tuple]:
    s = rec.get("stats") or {}
    lo, hi = s.get("ci_low"), s.get("ci_high")
    return None if lo is None or hi is None else (min(lo, hi), max(lo, hi))


def why_not_comparable(rec: Record) -> Optional[str]:
    """'disturbed: ...', 'unconverged' or 'no CI' when the point cannot be compared, else None."""
    why = disturbed(rec)
    if why:
        return f"disturbed: {why}"
    if at_floor(rec):
        return "at the subtraction floor"
    if not clean(rec):
        return "unconverged"
    return None if _ci(rec) else "no CI"


def judge(base: Record, other: Record) -> str:
    """`other` against `base`: better, worse, no significant change (CIs overlap) or not
    comparable (either point unconverged, disturbed or without a CI)."""
    if why_not_comparable(base) or why_not_comparable(other) or mark.mismatch(base, other):
        return NOT_COMPARABLE
    (alo, ahi), (blo, bhi) = _ci(base), _ci(other)
    if blo <= ahi and alo <= bhi:
        return SAME
    higher = blo > ahi
    return BETTER if higher == ((other.get("better") or "lower") == "higher") else WORSE


def counts(verdicts: Iterable[str]) -> Dict[str, int]:
    out = {v: 0 for v in VERDICTS}
    for v in verdicts:
        out[v] = out.get(v, 0) + 1
    return out


def run_quality(records: List[Record]) -> Dict[str, Any]:
    """How many of a run's points were disturbed or did not converge, and why (most common
    reasons first)."""
    recs = [r for r in records if isinstance(r.get("stats"), dict)]
    reasons: Dict[str, int] = {}
    for r in recs:
        why = disturbed(r)
        if why:
            kind = reason_kind(why)
            reasons[kind] = reasons.get(kind, 0) + 1
    return {"points": len(recs), "disturbed": sum(reasons.values()),
            "unconverged": sum(1 for r in recs if r.get("converged") is False),
            "reasons": sorted(reasons, key=lambda k: -reasons[k])}


def uniform_shift(verdicts: List[str], benchmarks: List[str]) -> Optional[str]:
    """WORSE or BETTER when nearly every significant difference of a run goes that way over
    several benchmarks (a disturbed run, or a changed machine state), else None."""
    sig = [(v, b) for v, b in zip(verdicts, benchmarks) if v in (BETTER, WORSE)]
    if len(sig) < UNIFORM_MIN_POINTS or len({b for _, b in sig}) < 2:
        return None
    for side in (WORSE, BETTER):
        if sum(v == side for v, _ in sig) >= UNIFORM_SHARE * len(sig):
            return side
    return None
