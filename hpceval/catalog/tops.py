"""The top rungs of a short budget's ladders (hpceval/catalog/budget.py). Where an hour holds an
area's ladders only for a few of the allocation's nodes (at 1,024 simulated ranks a rung costs
the simulator minutes), each entry's highest rung beyond them is measured alone: with its
benchmark's at_scale settings (Benchmark.at_scale: one variant of each choice, fewer steps a
sample), TOP_REPS samples a point and its area's point budgets. Every entry first takes its lowest such rung, then
all are raised a rung at a time while the time held for them lasts. A curve then runs from one
rank as far across the allocation as the budget holds (the whole of it where it can), with
the rungs between drawn for fewer nodes."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Tuple

from hpceval.catalog import ladder
from hpceval.catalog.estimate import stamp, total_s
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext

Entry = Tuple[Benchmark, Dict[str, Any]]
PlanEntry = Callable[[Benchmark, Dict[str, Any], PlanContext], List[LaunchSpec]]
# An area whose ladders fell short: (its name, the entries it kept, how it was fitted)
Short = Tuple[str, Sequence[Entry], Dict[str, Any]]
Top = Tuple[str, List[LaunchSpec], List[str]]    # (area, one rung's launches, its plan's notes)
# A top rung's samples a point, no more and no fewer (no warm-up): a point that stops on its
# confidence interval ran up to its max-reps on SMPI, where the ranks' computation is this
# host's noise (halo at 256 simulated ranks made 200 samples a point, evh1 20: 112 and 96 s of
# the hour). With its benchmark's shorter samples (at_scale: fewer steps) the seeds' tops at
# 1,024 ranks cost a fifth of what they did.
TOP_REPS = 2


def short(how: Dict[str, Any], ctx: PlanContext) -> bool:
    """Whether an area's ladders were drawn for fewer nodes than the allocation has."""
    return how["reach_nodes"] is not None and how["reach_nodes"] < ctx.nodes


def choose(areas: Sequence[Short], ctx: PlanContext, plan_entry: PlanEntry,
           seconds: float) -> Tuple[Dict[str, List[LaunchSpec]], List[str]]:
    """({area: launches}, their plans' notes): one rung beyond its area's reach for every
    entry, raised in rounds while `seconds` hold, the seeds' curves first (Benchmark.
    seed_curve), then the others with what they leave. Each round raises every entry by one
    rung, the cheapest raise first: every curve crosses nodes before any reaches the top (the
    hour at 1,024 simulated ranks took the cheapest entries' tops to 1,024 and left
    collectives, halo, barotropic, evh1 and pop-step at 64)."""
    entries = [(b.seed_curve, [t for t in reversed([top(area, b, v, r, how, ctx, plan_entry)
                                                    for r in beyond(b, v, how, ctx)]) if t[1]])
               for area, kept, how in areas for b, v in kept]
    ladders = [tops for _, tops in entries]
    level = [-1] * len(ladders)           # each entry's chosen rung, lowest first; -1: none
    left = seconds
    for first in (True, False):
        left = _raise([i for i, (seed, _) in enumerate(entries) if seed == first],
                      ladders, level, left)
    chosen = [ladders[i][j] for i, j in enumerate(level) if j >= 0]
    out: Dict[str, List[LaunchSpec]] = {}
    for area, specs, _ in chosen:
        out.setdefault(area, []).extend(specs)
    return out, [n for _, _, notes in chosen for n in notes]


def _raise(which: List[int], ladders: List[List[Top]], level: List[int], left: float) -> float:
    """Raise the entries `which` a rung a round (their `level`), the cheapest raise of a round
    first, while `left` seconds hold; what is left."""
    cost = lambda i, j: total_s(ladders[i][j][1]) if j >= 0 else 0.0
    raised = True
    while raised:
        raised = False
        steps = sorted((cost(i, level[i] + 1) - cost(i, level[i]), i) for i in which
                       if level[i] + 1 < len(ladders[i]))
        for step, i in steps:
            if step <= left:
                left -= step
                level[i] += 1
                raised = True
    return left


def beyond(bench: Benchmark, values: Dict[str, Any], how: Dict[str, Any],
           ctx: PlanContext) -> List[ladder.Rung]:
    """An entry's rungs on the whole allocation beyond the nodes its area's ladders were drawn
    for, highest first."""
    text = bench.rank_text(values)
    if text is None or not ladder.is_ladder(text):
        return []
    rule = bench.rank_rule(bench.settings(values)) if bench.rank_rule else None
    rungs = ladder.expand_rungs(text, ctx.per_node, ctx.nodes, rule=rule) or []
    return [r for r in reversed(rungs) if r.nodes > how["reach_nodes"]]


def at_scale(bench: Benchmark, values: Dict[str, Any]) -> Dict[str, Any]:
    """An entry's settings as a top rung measures it: its benchmark's at_scale ones and
    TOP_REPS samples a point."""
    at = dict(s.split("=", 1) for s in bench.at_scale)
    return {**values, **{n: bench.param(n).parse(t) for n, t in at.items()},
            **{n: TOP_REPS for n in ("min-reps", "max-reps") if bench.has_param(n)}}


def top(area: str, bench: Benchmark, values: Dict[str, Any], rung: ladder.Rung,
        how: Dict[str, Any], ctx: PlanContext, plan_entry: PlanEntry) -> Top:
    """One rung of an entry planned alone, with the notes its plan made."""
    alone = {**at_scale(bench, values), bench.rank_param: ladder.only(rung, ctx.per_node)}
    ctx.fewer_reps, ctx.thin, ctx.reach = True, 0, 0
    ctx.budget_scale = how["budget_scale"]
    mark = len(ctx.notes)
    specs = [s for s in plan_entry(bench, alone, ctx) if s.nranks == rung.ranks]
    notes = ctx.notes[mark:]
    del ctx.notes[mark:]
    return area, stamp(specs, ctx), notes


def within(spec: LaunchSpec, how: Dict[str, Any], ctx: PlanContext) -> bool:
    """Whether a top rung is inside the nodes its area's ladders reach (after a second fit)."""
    return not short(how, ctx) or spec.nranks <= how["reach_nodes"] * ctx.per_node
