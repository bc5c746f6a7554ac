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
from 64 ranks on (POP's 0.1-degree grid), a NAS class for a range of rank counts. A thinned
plan (a budget too short for every rung) keeps every 2^thin-th rung and always the ends, the
largest rung in one node and the first across nodes (K and 2K); a plan whose reach is lowered
draws its ladders for fewer nodes (PlanContext.ladder_nodes), and may measure a rung beyond
them alone (`only`); one whose floor is raised starts them higher (`raised`).

A benchmark with a rank rule (NPB's powers of two, PS's torus divisors: its RankRule) would
never leave one node when K x 2^j breaks the rule (100 a node): a rung of m nodes whose ranks
the rule refuses runs instead on the same m nodes with fewer ranks each, the most the rule
allows (100 a node: 128 ranks as 2 nodes x 64), and says so (placed, Rung.ppn)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional

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


@dataclass(frozen=True)
class RankRule:
    """The rank counts a benchmark runs on (NPB's powers of two, BT's squares, the divisors of
    PS's torus), declared with it (Benchmark.rank_rule): a predicate, and what a refusal says."""
    allows: Callable[[int], bool]
    says: str                        # "NPB runs on a power of two ranks (1, 2, 4, 8, ...)"

    def __call__(self, settings: Dict[str, Any]) -> "RankRule":
        """A rule that holds whatever the settings: its own Benchmark.rank_rule."""
        return self

    def check(self, bench: str, n: int) -> None:
        if not self.allows(n):
            raise UsageError(f"{bench}: {n} ranks: {self.says}")

    def per_node(self, nodes: int, k: int) -> Optional[int]:
        """The most ranks a node, at most k, that the rule allows on `nodes` nodes."""
        return _per_node(self, nodes, k)


@lru_cache(maxsize=1024)
def _per_node(rule: RankRule, nodes: int, k: int) -> Optional[int]:
    return next((p for p in range(k, 0, -1) if rule.allows(nodes * p)), None)


@dataclass(frozen=True, order=True)
class Rung:
    """A rung and the ranks a node it runs with: ppn K (or all its ranks, in one node), fewer
    where the benchmark's rank rule refuses K a node."""
    ranks: int
    ppn: int

    @property
    def nodes(self) -> int:
        return -(-self.ranks // self.ppn)


def placed(counts: List[int], k: int, n: int, rule: Optional[RankRule] = None) -> List[Rung]:
    """The rungs as they run on n nodes of k ranks: a rung across nodes whose ranks the rule
    refuses runs on as many nodes with fewer ranks each, the most the rule allows; one the rule
    refuses at every count a node is kept as it is (the benchmark refuses it, and says why)."""
    out = {}
    for r in counts:
        rung = _place(r, k, n, rule)
        out.setdefault(rung.ranks, rung)
    return sorted(out.values())


def _place(r: int, k: int, n: int, rule: Optional[RankRule]) -> Rung:
    nodes = -(-r // k)
    if rule is None or r <= k or nodes > n or rule.allows(r):
        return Rung(r, min(r, k))
    p = rule.per_node(nodes, k)
    return Rung(nodes * p, p) if p else Rung(r, k)


def anchors(rungs: List[Rung]) -> List[Rung]:
    """What thinning keeps besides the ends: the largest rung in one node, the smallest across
    nodes (K and 2K, or what a rank rule made of them)."""
    one = [r for r in rungs if r.nodes == 1]
    across = [r for r in rungs if r.nodes > 1]
    return ([max(one)] if one else []) + ([min(across)] if across else [])


def is_ladder(text: object) -> bool:
    return any(_WORD.fullmatch(w.strip()) for w in str(text).split(",") if w.strip())


def raised(text: object, floor: int) -> str:
    """The rank text with every ladder word's lower bound raised to `floor` (a budget's last
    cut before it leaves a benchmark out: the small rungs of a large problem cost the most)."""
    out = []
    for w in (w.strip() for w in str(text).split(",") if w.strip()):
        m = _WORD.fullmatch(w)
        if m is not None:
            w = f"{m.group(1)}>={max(int(m.group(2) or 1), floor)}" + (
                f"<={m.group(3)}" if m.group(3) else "")
        out.append(w)
    return ",".join(out)


def only(rung: Rung, k: int) -> str:
    """The rank text of one rung of a ladder drawn for K = k a node (a budget's top rung,
    measured alone): a ladder word bounded by the rung's count before a rank rule placed it
    with fewer ranks a node, and by its ranks after."""
    count = rung.nodes * k if rung.nodes > 1 else rung.ranks
    return f"ladder>={rung.ranks}<={count}"


def expand(text: object, k: int, n: int, level: int = 0) -> Optional[List[int]]:
    """The rank counts of a rank parameter that holds ladder words (numbers beside them are
    kept), thinned to `level`; None when it holds none (the planner reads it as before)."""
    out = expand_rungs(text, k, n, level)
    return None if out is None else [r.ranks for r in out]


def expand_rungs(text: object, k: int, n: int, level: int = 0,
                 rule: Optional[RankRule] = None) -> Optional[List[Rung]]:
    """expand's rungs with the ranks a node each runs with, placed by the benchmark's rank
    rule (a word's bounds hold after placing); None when the text holds no ladder word."""
    if not is_ladder(text):
        return None
    out: dict = {}
    for w in (w.strip() for w in str(text).split(",") if w.strip()):
        m = _WORD.fullmatch(w)
        if m is None:
            try:
                r = ascii_int(w)
            except ValueError:
                raise UsageError(f"--set ranks: '{w}' is not a rank count or one of "
                                 f"{', '.join(WORDS)}") from None
            out.setdefault(r, Rung(r, max(1, min(r, k))))
            continue
        least, most = int(m.group(2) or 1), int(m.group(3) or 1 << 62)
        counts = [r for r in thin(rungs(m.group(1), k, n), level, [k, 2 * k]) if r <= most]
        for rung in placed(counts, k, n, rule):
            if least <= rung.ranks:
                out.setdefault(rung.ranks, rung)
    return sorted(out.values())
