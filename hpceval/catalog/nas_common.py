"""What the NAS Parallel Benchmarks (npb-cg, npb-mg) share in the catalog: NPB's rank rule."""
from __future__ import annotations

from hpceval.errors import UsageError


def power_of_two(bench: str, n: int) -> None:
    """NPB runs on 1, 2, 4, 8, ... ranks."""
    if n < 1 or n & (n - 1):
        raise UsageError(f"{bench}: {n} ranks: NPB runs on a power of two ranks (1, 2, 4, 8, ...)")
