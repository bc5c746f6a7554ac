"""Power-of-two dips in a rate against problem size: the EV7 study saw SAGE's cell rate fall at
block sizes that are powers of two (arrays whose rows map onto the same cache sets). A pure
function of the points, used by the hydro report section.

A candidate is a point whose block has a power-of-two leading dimension (the stride between
rows); it is judged against the nearest smaller and larger points whose leading dimensions are
not powers of two: the rate those two predict at its size (interpolated in log size) is the
expectation. A dip is a rate more than DIP_FRACTION below it whose confidence interval lies
wholly below the neighbours' interpolated lower bounds: a drop the noise cannot explain."""
from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Sequence

DIP_FRACTION = 0.05


class Point(NamedTuple):
    dims: Sequence[int]          # the block per rank, leading (fastest) dimension first
    size: float                  # cells (or bytes) per rank: the x axis
    rate: float                  # higher is better
    ci_low: float
    ci_high: float


def _pow2(n: int) -> bool:
    return n >= 4 and n & (n - 1) == 0


def _interpolate(a: Point, b: Point, size: float, field: str) -> float:
    """The log-log line through a and b (field: rate or ci_low) at `size`."""
    xa, xb = math.log(a.size), math.log(b.size)
    ya, yb = math.log(getattr(a, field)), math.log(getattr(b, field))
    t = (math.log(size) - xa) / (xb - xa)
    return math.exp(ya + t * (yb - ya))


def _neighbours(points: List[Point], i: int) -> Optional[tuple]:
    below = [p for p in points[:i] if not _pow2(p.dims[0]) and p.size < points[i].size]
    above = [p for p in points[i + 1:] if not _pow2(p.dims[0]) and p.size > points[i].size]
    return (below[-1], above[0]) if below and above else None


def power_of_two_dips(points: Sequence[Point]) -> List[dict]:
    """One row per candidate with neighbours on both sides: {"point", "expected", "ratio",
    "dip"}; candidates without them are left out (nothing to judge them against)."""
    pts = sorted((p for p in points if p.rate > 0 and p.ci_low > 0), key=lambda p: p.size)
    rows = []
    for i, p in enumerate(pts):
        if not _pow2(p.dims[0]):
            continue
        nb = _neighbours(pts, i)
        if nb is None:
            continue
        expected = _interpolate(*nb, p.size, "rate")
        floor = _interpolate(*nb, p.size, "ci_low")
        ratio = p.rate / expected
        rows.append({"point": p, "expected": expected, "ratio": ratio,
                     "dip": ratio < 1 - DIP_FRACTION and p.ci_high < floor})
    return rows
