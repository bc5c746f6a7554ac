"""A plan fitted to a time budget (`hpceval run --budget`, the study): the budget is divided over
the plan's areas by their shares, and each area is fitted to its share by the least of its
cuts (`cuts`): every point's time budget shortened (down to a floor), then fewer repetitions,
then its rank ladders thinned (every 2nd, 4th ... rung, the ends kept), then drawn for half its
nodes, a quarter ... (a launch's start-up grows with its ranks), re-planned each time. Only
when the deepest cut does not fit is its costliest entry eased (a smaller problem, its small
rungs left out: RELIEFS) and at last left out: a benchmark keeps a curve across nodes before it
is dropped. Where the ladders then stop short of the allocation, a share of the budget
(TOP_SHARES) measures their top rungs alone (hpceval/catalog/tops.py), so that the curves still reach every node.
What was cut, eased or left out is noted in the plan (PlanContext.notes).

A launch's estimate is hpceval/catalog/estimate.py's."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from hpceval.catalog import ladder
from hpceval.catalog import tops as top
from hpceval.catalog.estimate import stamp, total_s
from hpceval.catalog.params import YEAR_S, item_text
from hpceval.catalog.registry import BENCHMARKS, Benchmark, LaunchSpec, PlanContext
from hpceval.errors import UsageError

MAX_THIN = 4               # at most every 16th rung (and the ends)
MIN_SCALE = 1e-3           # budgets are shortened at most this much before rungs are thinned
SCALE_STEPS = 4            # budget scales a fit tries: 2^(-k/4)
# What a short budget leaves of every point's repetitions (PlanContext.fewer_reps): no warm-up,
# at most three samples kept before a point may stop (a median and its spread)
REPS_LEAN = {"warmup": 0, "min-reps": 3}

# Each area's share of a budget (normalised over the areas a plan has): communication and the
# applications carry the study's curves against processor count.
AREA_SHARES = {"memory": 0.10, "communication": 0.30, "kernels": 0.15, "proxies": 0.30,
               "nas": 0.15}
DEFAULT_SHARE = 0.10

Entry = Tuple[Benchmark, Dict[str, Any]]
PlanEntry = Callable[[Benchmark, Dict[str, Any], PlanContext], List[LaunchSpec]]


# A duration: ASCII digits with an optional decimal point, then an optional unit (seconds by
# default). float() would also take '1_0', '\uff11', '1e3', 'nan' and ' 10 '.
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(s|m|min|h|d)?", re.IGNORECASE | re.ASCII)
_UNIT_S = {"": 1, "s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def parse_budget(text: str) -> float:
    """'1h', '10m', '90s', '3600', '1.5h' -> seconds, from 1 s to a year."""
    m = _DURATION.fullmatch(str(text))
    if not m:
        raise UsageError(f"--budget {text}: expected a duration such as 90s, 10m or 1h (ASCII "
                         "digits, a decimal point, a unit s, m, min, h or d)")
    value = float(m.group(1)) * _UNIT_S[(m.group(2) or "").lower()]
    if not 1 <= value <= YEAR_S:
        raise UsageError(f"--budget {text}: between 1 s and a year")
    return value


def shares(entries: Sequence[Entry]) -> Dict[str, float]:
    areas = list(dict.fromkeys(b.area for b, _ in entries))
    raw = {a: AREA_SHARES.get(a, DEFAULT_SHARE) for a in areas}
    return {a: w / sum(raw.values()) for a, w in raw.items()}


@dataclass(frozen=True)
class Cut:
    """How far a plan is cut to fit: fewer repetitions (REPS_LEAN), ladders thinned to every
    2^thin-th rung, ladders drawn for nodes / 2^reach nodes (PlanContext)."""
    fewer_reps: bool = False
    thin: int = 0
    reach: int = 0


def cuts(nodes: int) -> List[List[Cut]]:
    """The cuts tried in turn (after every point's budget is shortened), grouped by the nodes
    ladders are drawn for: all of them with fewer repetitions, then ladders thinned to every
    2nd ... 16th rung; then for half the nodes, a quarter ... down to two, each thinned in
    turn. A benchmark loses rungs and reach, not its curve, before it is left out; the reach
    goes before the rungs between, as a launch's start-up grows with its ranks (the top rung
    costs about what all those below it do)."""
    first = [Cut(), Cut(True)] + [Cut(True, t) for t in range(1, MAX_THIN + 1)]
    return [first] + [[Cut(True, t, r) for t in range(MAX_THIN + 1)]
                      for r in range(1, nodes.bit_length()) if nodes >> r >= 2]


def _attempt(entries, ctx, plan_entry, cut: Cut, scale: float, mark: int) -> List[LaunchSpec]:
    """The entries planned with this cut and budget scale; the notes are this attempt's."""
    del ctx.notes[mark:]
    ctx.fewer_reps, ctx.thin, ctx.reach = cut.fewer_reps, cut.thin, cut.reach
    ctx.budget_scale = scale
    return stamp([s for b, v in entries for s in plan_entry(b, v, ctx)], ctx)


Fitted = Tuple[List[LaunchSpec], Dict[str, Any], List[str], List[Entry]]


def _fit_area(entries: Sequence[Entry], ctx: PlanContext, plan_entry: PlanEntry,
              seconds: float) -> Fitted:
    """The area's launches within `seconds`, how they were fitted (point budgets shortened,
    repetitions cut, ladders thinned and their reach lowered; then the costliest entry eased,
    RELIEFS, or left out, the seeds' curves last, until it fits), the notes of its plan, taken out of ctx.notes, and
    the entries it kept as it eased them."""
    entries = list(entries)
    eased: Dict[str, List[str]] = {key: [] for key, _ in RELIEFS}
    dropped: List[str] = []
    last, mark = cuts(ctx.nodes)[-1][-1], len(ctx.notes)
    deepest = lambda es: total_s(_attempt(es, ctx, plan_entry, last, MIN_SCALE, mark))
    specs: List[LaunchSpec] = []
    how: Optional[Dict[str, Any]] = None
    while entries and how is None:
        specs, how = _fit_entries(entries, ctx, plan_entry, seconds)
        if how is None:
            costs = [deepest([e]) for e in entries]
            # the costliest entry first; but while the seeds' curves fit together, theirs last
            # (2 nodes and 30 s kept pingpong and p2p and left random2 out)
            seeds = [e for e in entries if e[0].seed_curve]
            keep = bool(seeds) and deepest(seeds) <= seconds
            i = min(range(len(entries)), key=lambda j: (keep and entries[j][0].seed_curve,
                                                        -costs[j]))
            _ease(entries, i, ctx.per_node, lambda es: deepest(es) <= seconds, eased, dropped)
            del ctx.notes[mark:]
    notes = ctx.notes[mark:]
    del ctx.notes[mark:]
    how = how or {"thin": None, "reach_nodes": None, "fewer_reps": None, "budget_scale": None}
    return specs, {**how, **eased, "left_out": dropped}, notes, entries


def _ease(entries: List[Entry], i: int, k: int, fits: Callable[[List[Entry]], bool],
          eased: Dict[str, List[str]], dropped: List[str]) -> None:
    """Entry i eased by the first of RELIEFS that changes it (said in eased), else left out."""
    for key, relief in RELIEFS:
        entry = relief(entries, i, k, fits)
        if entry is not None:
            entries[i] = entry
            eased[key].append(_entry_name(entry))
            return
    name = _entry_name(entries.pop(i))
    for names in eased.values():           # eased, then left out all the same: left out
        while name in names:
            names.remove(name)
    dropped.append(name)


def _leaner(entries: List[Entry], i: int, k: int,
            fits: Callable[[List[Entry]], bool]) -> Optional[Entry]:
    """Entry i with its benchmark's lean settings (Benchmark.lean: a smaller problem); None
    when it has them already, or none."""
    bench, values = entries[i]
    lean = {**values, **{name: bench.param(name).parse(text)
                         for name, text in (s.split("=", 1) for s in bench.lean)}}
    return None if lean == values else (bench, lean)


def _raise_floor(entries: List[Entry], i: int, k: int,
                 fits: Callable[[List[Entry]], bool]) -> Optional[Entry]:
    """Entry i with its ladders' smallest rungs left out, from the fewest (up to a node's k)
    that lets the entries fit at the deepest cut: a large problem's small rungs take the
    longest (dense's one rank). A benchmark with a model (`hpceval predict` reads its compute
    rate from the one-rank run) keeps its one-rank rung where any floor lets it fit. None: no
    such floor, or no ladder."""
    bench, values = entries[i]
    text = bench.rank_text(values)
    if text is None or not ladder.is_ladder(text):
        return None
    floors = [ladder.raised(text, floor) for floor in ladder.node_rungs(k)[1:]]
    one = bench.model and 1 in (ladder.expand(text, k, 2) or [])
    kept = [t if "1" in t.split(",") else f"{t},1" for t in floors] if one else []
    for ranks in kept + floors:
        entry = (bench, {**values, bench.rank_param: ranks})
        if fits(entries[:i] + [entry] + entries[i + 1:]):
            return entry
    return None


def _one_variant(entries: List[Entry], i: int, k: int,
                 fits: Callable[[List[Entry]], bool]) -> Optional[Entry]:
    """Entry i measured on every rung as its top rungs are (tops.at_scale: one variant of each
    choice, shorter samples, TOP_REPS samples a point); None when it is so already. The
    256-rank study in 10 minutes left halo and pop-step out whole once their ladders' learned
    costs grew (halo at 16 ranks, every method and width: 137 s)."""
    bench, values = entries[i]
    alone = top.at_scale(bench, values)
    return None if alone == values else (bench, alone)


# What eases an area's costliest entry, in turn, when no cut fits the area: its benchmark's
# smaller problem, then its ladders' smaller rungs left out (where that makes the area fit),
# then one variant of each choice (as its top rungs); only then is it left out
RELIEFS = (("smaller_problem", _leaner), ("floor_raised", _raise_floor),
           ("one_variant", _one_variant))
EASED = ("left_out",) + tuple(key for key, _ in RELIEFS)    # worst first (_better)


NAMED_BY = ("grids", "truncation", "class", "cells", "per-rank", "patterns", "ranks", "nranks")


def _entry_name(entry: Entry) -> str:
    """An entry as a note names it: its benchmark, problem, ranks (and lean settings)."""
    bench, values = entry
    named = NAMED_BY + tuple(s.split("=", 1)[0] for s in bench.lean)
    shown = {k: v for k, v in values.items() if k in named}
    text = {k: ",".join(map(item_text, v)) if isinstance(v, list) else v for k, v in shown.items()}
    return bench.name + "".join(f" {k}={v}" for k, v in text.items())


def _fit_entries(entries: Sequence[Entry], ctx: PlanContext, plan_entry: PlanEntry,
                 seconds: float) -> Tuple[List[LaunchSpec], Optional[Dict[str, Any]]]:
    """The least cut that fits `seconds` (its budget scale converged), and how; None: none.
    A group whose deepest cut does not fit is passed over whole."""
    mark = len(ctx.notes)
    attempt = lambda cut, scale: _attempt(entries, ctx, plan_entry, cut, scale, mark)
    fits = lambda cut, scale: total_s(attempt(cut, scale)) <= seconds
    for cut in (c for group in cuts(ctx.nodes) if fits(group[-1], MIN_SCALE) for c in group):
        specs, scale = attempt(cut, 1.0), 1.0
        if total_s(specs) > seconds:
            if not fits(cut, MIN_SCALE):
                continue
            scale = _converge(lambda s: fits(cut, s))
            specs = attempt(cut, scale)
        return specs, {"thin": cut.thin, "reach_nodes": ctx.ladder_nodes,
                       "fewer_reps": cut.fewer_reps, "budget_scale": scale}
    del ctx.notes[mark:]
    return [], None


def _converge(fits: Callable[[float], bool]) -> float:
    """The largest budget scale of `_scale`'s steps that fits, by bisection: scale 1 does not
    fit, MIN_SCALE does (about 6 attempts)."""
    lo, hi = 0, SCALE_STEPS * math.ceil(math.log2(1 / MIN_SCALE))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(_scale(mid)) else (mid, hi)
    return _scale(hi)


def _scale(k: int) -> float:
    """The k-th budget scale a fit tries: 1, 0.84, 0.71, 0.59, 0.5 ... (quarter octaves, so
    that the attempts of a fit share their plans: plan.py's memo), MIN_SCALE at least."""
    return max(2.0 ** (-k / SCALE_STEPS), MIN_SCALE)


# The shares of a budget held, in turn, for the top rungs (tops.py) where the areas' ladders,
# fitted to the whole of it, would not reach every node: the first that leaves no entry worse
# off (left out, or eased) than the whole budget did
TOP_SHARES = (0.25, 0.125, 0.0625)

Areas = Dict[str, Tuple[float, Fitted]]      # {area: (the seconds it was given, its fit)}


def fit(entries: Sequence[Entry], ctx: PlanContext, plan_entry: PlanEntry,
        budget_s: float) -> List[LaunchSpec]:
    """Every area fitted to its share of budget_s, and where that leaves ladders short of the
    allocation, their top rungs measured alone (_with_tops); then what the areas and tops left
    unused given to the areas that had to cut, ease or leave out (one more pass). ctx.areas
    says how each was fitted, ctx.notes what changed."""
    by_area = {a: [(b, v) for b, v in entries if b.area == a] for a in shares(entries)}
    fitted, tops, top_notes, lacking = _with_tops(by_area, shares(entries), ctx, plan_entry,
                                                  budget_s)
    fitted = _spare(fitted, by_area, ctx, plan_entry, budget_s - _used(fitted)
                    - sum(total_s(t) for t in tops.values()))
    tops, top_notes = _tops_again(tops, top_notes, lacking, ctx, plan_entry,
                                  budget_s - sum(total_s(f[0]) for _, f in fitted.values()))
    tops = {a: [t for t in specs if not top.within(t, fitted[a][1][1], ctx)]
            for a, specs in tops.items()}
    ctx.fewer_reps, ctx.thin, ctx.reach, ctx.budget_scale = False, 0, 0, 1.0
    for text in [t for _, (_, _, notes, _) in fitted.values() for t in notes] + top_notes:
        ctx.note(text)
    ctx.areas = []
    for a, (given, (specs, how, _, _)) in fitted.items():
        mine = tops.get(a, [])
        _note(ctx, a, given, how, mine)
        ctx.areas.append({"area": a, "share_s": round(given + total_s(mine), 1),
                          "estimate_s": round(total_s(specs + mine), 1),
                          "launches": len(specs) + len(mine),
                          "max_ranks": max((s.nranks for s in specs + mine), default=0), **how,
                          "tops": [s.label for s in mine]})
    return [s for a, (_, (specs, _, _, _)) in fitted.items() for s in specs + tops.get(a, [])]


def _with_tops(by_area: Dict[str, List[Entry]], share: Dict[str, float], ctx: PlanContext,
               plan_entry: PlanEntry, budget_s: float):
    """(the areas' fits, {area: top rungs}, the tops' notes, the areas short of the
    allocation, as tops.choose takes them): the areas fitted to budget_s,
    or, where that leaves ladders short of the allocation, to what the first of TOP_SHARES
    leaves of it that keeps every entry the whole budget kept, and their top rungs in the rest
    (hpceval/catalog/tops.py); where no share keeps every entry, the whole fit with the top
    rungs that fit what its launches leave of budget_s."""
    whole = _fit_areas(by_area, share, ctx, plan_entry, budget_s)
    short = any(top.short(how, ctx) for _, (_, how, _, _) in whole.values())
    for held_for_tops in TOP_SHARES if short else ():
        held = _fit_areas(by_area, share, ctx, plan_entry, (1 - held_for_tops) * budget_s)
        if not _no_worse(held, whole):
            continue
        lacking = [(a, kept, how) for a, (_, (_, how, _, kept)) in held.items()
                   if top.short(how, ctx)]
        tops, notes = top.choose(lacking, ctx, plan_entry, budget_s - _used(held))
        if tops:
            return held, tops, notes, lacking
    if not short:
        return whole, {}, [], []
    # No share held keeps every entry: the top rungs get what the whole fit's launches leave
    # (a ladder's rungs are whole launches: 828 s of an hour at 1,024 simulated ranks)
    lacking = [(a, kept, how) for a, (_, (_, how, _, kept)) in whole.items()
               if top.short(how, ctx)]
    tops, notes = top.choose(lacking, ctx, plan_entry,
                             budget_s - sum(total_s(f[0]) for _, f in whole.values()))
    return whole, tops, notes, lacking


def _tops_again(tops: Dict[str, List[LaunchSpec]], notes: List[str], lacking: List[Any],
                ctx: PlanContext, plan_entry: PlanEntry, seconds: float):
    """The top rungs chosen again with the `seconds` the areas' launches, given the spare,
    left them, where that raises them: an area's launches are whole rungs, and an area that cut
    holds its share (the run's guard, hpceval/runner/shares.py, reads estimates), so the hour
    at 1,024 simulated ranks left 424 s that took barotropic's two tops to 1,024."""
    if not lacking:
        return tops, notes
    more, more_notes = top.choose(lacking, ctx, plan_entry, seconds)
    had, got = (sum(total_s(t) for t in x.values()) for x in (tops, more))
    return (more, more_notes) if had < got <= seconds else (tops, notes)


def _fit_areas(by_area: Dict[str, List[Entry]], share: Dict[str, float], ctx: PlanContext,
               plan_entry: PlanEntry, budget_s: float) -> Areas:
    return {a: (share[a] * budget_s, _fit_area(mine, ctx, plan_entry, share[a] * budget_s))
            for a, mine in by_area.items()}


def _no_worse(held: Areas, whole: Areas) -> bool:
    """Whether no area of `held` left out or eased more entries than it did in `whole`."""
    return all(len(held[a][1][1][key]) <= len(how[key])
               for a, (_, (_, how, _, _)) in whole.items() for key in EASED)


def _used(fitted: Areas) -> float:
    """The seconds the areas hold: its share where an area had to cut, else its estimate."""
    return sum(given if _squeezed(how) else total_s(specs)
               for given, (specs, how, _, _) in fitted.values())


def _spare(fitted: Areas, by_area: Dict[str, List[Entry]], ctx: PlanContext,
           plan_entry: PlanEntry, spare: float) -> Areas:
    """The areas that had to cut fitted again with `spare` added to their shares (by their
    weights), where that fits them better."""
    squeezed = [a for a, (_, (_, how, _, _)) in fitted.items() if _squeezed(how)]
    out = {a: (given if a in squeezed else total_s(f[0]), f) for a, (given, f) in fitted.items()}
    for a in squeezed:
        more = out[a][0] + spare * out[a][0] / sum(out[x][0] for x in squeezed)
        again = _fit_area(by_area[a], ctx, plan_entry, more)
        if total_s(again[0]) <= more and _better(again[1], out[a][1][1]):
            out[a] = (more, again)
    return out


def _squeezed(how: Dict[str, Any]) -> bool:
    return any(how[key] for key in EASED) or bool(how["fewer_reps"]) or how["thin"] != 0 or \
        how["budget_scale"] != 1.0


def _better(new: Dict[str, Any], old: Dict[str, Any]) -> bool:
    key = lambda h: (*(len(h[k]) for k in EASED), -(h["reach_nodes"] or 0),
                     h["thin"] if h["thin"] is not None else 99, bool(h["fewer_reps"]),
                     -(h["budget_scale"] or 0))
    return key(new) < key(old)


def _nth(n: int) -> str:
    return f"{n}nd" if n == 2 else f"{n}th"


def _note(ctx: PlanContext, area: str, seconds: float, how: Dict[str, Any],
          tops: Sequence[LaunchSpec] = ()) -> None:
    share = f"to fit its {seconds:.0f} s share"
    for spec in tops:
        at = BENCHMARKS[spec.benchmark].at_scale
        ctx.note(f"{area}: {spec.label}: measured alone beyond the {how['reach_nodes']} nodes "
                 f"its ladder is drawn for, as far as the budget holds with every curve raised "
                 f"a rung at a time"
                 + (f" ({' '.join(at)})" if at else ""))
    for name in how["left_out"]:
        ctx.note(f"{area}: {name} left out: it does not fit the area's {seconds:.0f} s share "
                 "of the budget even with the shortest point budgets, the fewest repetitions "
                 "and the thinnest, shortest ladders")
    for name in how["smaller_problem"]:
        ctx.note(f"{area}: {name}: a smaller problem {share}")
    for name in how["one_variant"]:
        ctx.note(f"{area}: {name}: measured on every rung as its top rungs are (its at_scale "
                 f"settings, {top.TOP_REPS} samples a point) {share}")
    for name in how["floor_raised"]:
        ctx.note(f"{area}: {name}: its smaller rungs left out (a large problem's take the "
                 f"longest) {share}")
    if how["thin"] is None:
        return
    if how["budget_scale"] < 1.0:
        ctx.note(f"{area}: every point's budget x{how['budget_scale']:.3g} {share}")
    if how["fewer_reps"]:
        ctx.note(f"{area}: no warm-up and at most {REPS_LEAN['min-reps']} samples a point before "
                 f"it may stop {share}")
    if how["thin"]:
        ctx.note(f"{area}: rank ladders thinned to every {_nth(2 ** how['thin'])} rung (ends, one "
                 f"node and two nodes kept) {share}")
    if how["reach_nodes"] < ctx.nodes:
        ctx.note(f"{area}: rank ladders drawn for {how['reach_nodes']} of the {ctx.nodes} nodes "
                 f"(up to {how['reach_nodes'] * ctx.per_node} ranks) {share}")
