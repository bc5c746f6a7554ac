"""The experiment kinds: each turns one benchmark's planned launches into the launches of its
variants. Kinds register themselves (kind_*.py); nothing here names one."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hpceval.catalog import LaunchSpec, PlanContext
from hpceval.errors import UsageError


@dataclass
class Setup:
    """What a kind may need to plan its variants: the benchmark, the user's settings, the
    machine's context, the launcher (it says which bindings it can express)."""
    benchmark: str
    sets: List[str]
    ctx: PlanContext
    launcher: object
    oversubscribe: bool = False
    notes: List[str] = field(default_factory=list)   # said once and kept in the run's settings


# One variant -> groups of launches; the launches of a group run at the same time (copies).
Expand = Callable[[str, Setup], List[List[LaunchSpec]]]


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    axis: str                                   # what the variants vary, for figures
    defaults: Callable[[PlanContext], str]      # the default --variants, the baseline first
    parse: Callable[[str, PlanContext], List[str]]   # --variants -> names (UsageError if bad)
    expand: Expand
    ordered: bool = False                       # variants are numbers: a line, not bars
    # A variant's launches of a round add up: the node's combined rate is the sample (the
    # best of each launch's records of a point, summed over the launches)
    combine: bool = False


EXPERIMENTS: Dict[str, Experiment] = {}


def register_experiment(e: Experiment) -> Experiment:
    EXPERIMENTS[e.name] = e
    return e


def experiment(name: str) -> Experiment:
    if name not in EXPERIMENTS:
        raise UsageError(f"unknown experiment kind '{name}' (known: {', '.join(sorted(EXPERIMENTS))})")
    return EXPERIMENTS[name]


def names(text: str, allowed: Sequence[str], what: str) -> List[str]:
    """A comma-separated list of variant names, each one of `allowed`, duplicates dropped."""
    items = list(dict.fromkeys(w.strip() for w in text.split(",") if w.strip()))
    if not items:
        raise UsageError(f"--variants: empty list of {what}")
    for w in items:
        if w not in allowed:
            raise UsageError(f"--variants: unknown {what} '{w}' (known: {', '.join(allowed)})")
    return items


def plan_benchmark(setup: Setup, extra: Tuple[str, ...] = (),
                   nranks: Optional[int] = None) -> List[LaunchSpec]:
    """The benchmark's own plan with the user's settings (and a kind's `extra` ones first, so
    the user's win), at `nranks` when given."""
    from dataclasses import replace

    from hpceval.catalog import plan_targets
    ctx = replace(setup.ctx, nranks=nranks) if nranks else setup.ctx
    specs = plan_targets([setup.benchmark], list(extra) + setup.sets, ctx)
    if not specs:
        raise UsageError(f"{setup.benchmark}: the settings plan no launch")
    return specs
