"""Process grids a model tries: every P x Q = p (the measured side keeps the best grid too)."""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from hpceval.errors import UsageError


def factor_pairs(p: int) -> List[Tuple[int, int]]:
    return [(a, p // a) for a in range(1, p + 1) if p % a == 0]


def best_grid(p: int, parts: Callable[[int, int], Dict[str, float]], nx: int, ny: int,
              cap: int = 64, fits: Optional[Callable[[int, int], bool]] = None
              ) -> Tuple[Tuple[int, int], Dict[str, float]]:
    """The P x Q with the smallest predicted total, and its parts, among the grids that leave
    every rank at least one point of the nx x ny plane (and that `fits`, the code's own rule
    where it has more). Beyond `cap` factor pairs (never, for p <= 10^5: 100 at most) only the
    squarest are tried."""
    pairs = [(P, Q) for P, Q in factor_pairs(p)
             if P <= nx and Q <= ny and (fits is None or fits(P, Q))]
    if not pairs:
        raise TooMany(f"{p} ranks: no P x Q = {p} grid fits {nx} x {ny}")
    pairs = sorted(pairs, key=lambda pq: abs(pq[0] - pq[1]))[:cap]
    scored = [(pq, parts(*pq)) for pq in pairs]
    return min(scored, key=lambda s: (sum(s[1].values()), s[0]))


class TooMany(UsageError):
    """More ranks than the problem can be split into."""
