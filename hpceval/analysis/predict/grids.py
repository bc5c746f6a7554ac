"""Process grids a model tries: every P x Q = p (the measured side keeps the best grid too)."""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple


def factor_pairs(p: int) -> List[Tuple[int, int]]:
    return [(a, p // a) for a in range(1, p + 1) if p % a == 0]


def best_grid(p: int, parts: Callable[[int, int], Dict[str, float]],
              cap: int = 64) -> Tuple[Tuple[int, int], Dict[str, float]]:
    """The P x Q with the smallest predicted total, and its parts. Beyond `cap` factor pairs
    (never, for p <= 10^5: 100 at most) only the squarest are tried."""
    pairs = sorted(factor_pairs(p), key=lambda pq: abs(pq[0] - pq[1]))[:cap]
    scored = [(pq, parts(*pq)) for pq in pairs]
    return min(scored, key=lambda s: (sum(s[1].values()), s[0]))
