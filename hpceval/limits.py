"""The sizes hpceval plans for at most, checked before any per-rank or per-node structure is
built: a typo's 10^9 ranks is refused in milliseconds rather than filling memory for tens of
seconds. One cap on ranks for every way of asking for them (--np, --nodes x --ppn, a hostfile,
a simulated platform, a benchmark's rank list); a refusal says the limit and the value."""
from __future__ import annotations

from typing import Optional

from hpceval.errors import UsageError

# 16,777,216 ranks: ten times the largest machines' cores; a study of 10,000 nodes x 100 ranks
# (10^6 ranks) plans in seconds, and so does one at the cap.
MAX_RANKS = 1 << 24
MAX_NODES = 1_000_000       # nodes of a run, hosts of a hostfile or a platform file
MAX_PPN = 100_000           # ranks per node


def check_count(what: str, value: Optional[int], limit: int, noun: str, least: int = 1) -> None:
    """`value` (None: not given) within [least, limit]: one line naming both otherwise. `noun`
    is singular ("rank per node"); its first word takes the plural."""
    if value is None:
        return
    if value < least:
        raise UsageError(f"{what}: need at least {least:,} {_plural(noun, least)}")
    if value > limit:
        raise UsageError(f"{what}: {value:,} {_plural(noun, value)} is more than the {limit:,} "
                         "allowed")


def _plural(noun: str, n: int) -> str:
    head, _, tail = noun.partition(" ")
    return noun if n == 1 else f"{head}s{' ' if tail else ''}{tail}"


def check_ranks(what: str, nodes: int, ppn: int) -> int:
    """nodes x ppn within MAX_RANKS, checked before anything of that size is built."""
    n = nodes * ppn
    if n > MAX_RANKS:
        raise UsageError(f"{what}: {nodes:,} nodes x {ppn:,} ranks per node = {n:,} ranks is "
                         f"more than the {MAX_RANKS:,} allowed")
    return n
