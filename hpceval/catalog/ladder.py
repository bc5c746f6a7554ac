"""Rank ladders drawn from the allocation (N nodes x K ranks per node), as the seeds drew their
curves against processor count: inside a node 1, 2, 4 ... K ranks (one processor vs all of a
node); across nodes 1, 2, 4 ... N nodes at K ranks each, and N itself.

A benchmark's rank parameter (`ranks` or `nranks`) may hold ladder words instead of numbers;
the planner (hpceval/catalog/plan.py) expands them here and plans every rung:

    ladder    every rung: the node's ladder, then the nodes' ladder
    node      1, 2, 4 ... K on one node
    nodes     K, 2K, 4K ... NK: whole nodes
    cross     two whole nodes (2K ranks); on one node 2 x max(2, K/2), emulated
    full      NK: the whole allocation

A word may carry bounds, `ladder>=64` or `ladder>=16<=1024`: a problem that only makes sense
from 64 ranks on (POP's 0.1-degree grid), a NAS class for a range of rank counts. A thinned plan (a budget too short for every rung) keeps every
2^thin-th rung and always the ends, K and 2K."""
from __future__ import annotations

import re
from typing import List, Optional

from hpceval.catalog.params import ascii_int
from hpceval.errors import UsageError

WORDS = ("ladder", "node", "nodes", "cross", "full")
_WORD = re.compile(r"(ladder|node|nodes|cross|full)(?:>=([0-9]+))?(?:<=([0-9]+))?")


def pow2_upto(top: int, start: int = 1) -> List[int]:
    out, n = [], start
    while n < top:
        out.append(n)
        n *= 2
    return out + [top]


def node_rungs(k: int) -> List[int]:
    return pow2_upto(k)


def nodes_rungs(k: int, n: int) -> List[int]:
    return [k * m for m in pow2_upto(n)]


def cross_rung(k: int, n: int) -> int:
    return 2 * k if n >= 2 else 2 * max(2, k // 2)


def rungs(word: str, k: int, n: int) -> List[int]:
    if word == "node":
        return node_rungs(k)
    if word == "nodes":
        return nodes_rungs(k, n)
    if word == "cross":
        return [cross_rung(k, n)]
    if word == "full":
        return [k * n]
    return sorted(set(node_rungs(k) + nodes_rungs(k, n)))


def thin(ladder: List[int], level: int, anchors: List[int]) -> List[int]:
    """Every 2^level-th rung, the ends and the anchors kept: fewer launches, the same span."""
    if level <= 0 or len(ladder) <= 2:
        return ladder
    step = 1 << level
    keep = {ladder[0], ladder[-1]} | {a for a in anchors if a in ladder}
    return [r for i, r in enumerate(ladder) if i % step == 0 or r in keep]


def is_ladder(text: object) -> bool:
    return any(_WORD.fullmatch(w.strip()) for w in str(text).split(",") if w.strip())


def expand(text: object, k: int, n: int, level: int = 0) -> Optional[List[int]]:
    """The rank counts of a rank parameter that holds ladder words (numbers beside them are
    kept), thinned to `level`; None when it holds none (the planner reads it as before)."""
    if not is_ladder(text):
        return None
    out: set = set()
    for w in (w.strip() for w in str(text).split(",") if w.strip()):
        m = _WORD.fullmatch(w)
        if m is None:
            try:
                out.add(ascii_int(w))
            except ValueError:
                raise UsageError(f"--set ranks: '{w}' is not a rank count or one of "
                                 f"{', '.join(WORDS)}") from None
            continue
        least, most = int(m.group(2) or 1), int(m.group(3) or 1 << 62)
        out.update(r for r in thin(rungs(m.group(1), k, n), level, [k, 2 * k])
                   if least <= r <= most)
    return sorted(out)
