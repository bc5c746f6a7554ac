"""An experiment's plan: its variants, each a list of launch groups (a group's launches run at
once), measured interleaved: round 1 runs A B C, round 2 A B C again, and so on, so that a
drift of the machine (another job starting, a frequency change) falls on every variant alike
rather than passing for an effect of one."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

from hpceval.catalog import LaunchSpec
from hpceval.errors import UsageError
from hpceval.experiment.registry import Setup, experiment

MAX_ROUNDS = 100


@dataclass
class Variant:
    name: str
    groups: List[List[LaunchSpec]]


@dataclass
class Step:
    round: int                  # 1-based
    variant: str
    group: List[LaunchSpec]


def plan_variants(kind: str, variants: str, setup: Setup) -> List[Variant]:
    """Every variant planned (and checked) before anything runs: a variant the machine or the
    MPI cannot express is refused here, with nothing stored."""
    exp = experiment(kind)
    chosen = exp.parse(variants or exp.defaults(setup.ctx), setup.ctx)
    if len(chosen) < 2:
        raise UsageError(f"--variants: an experiment compares at least two variants, got {chosen[0]}")
    planned = [Variant(v, _expand(exp, v, setup, asked=bool(variants))) for v in chosen]
    kept = [v for v in planned if v.groups]        # a build that failed plans nothing
    if len(kept) < 2:
        why = "; ".join(setup.notes) or "none"
        raise UsageError(f"--variants: fewer than two variants could be planned ({why})")
    _check_np(kept, setup)
    return kept


def _check_np(variants: List[Variant], setup: Setup) -> None:
    """--np is honoured or refused: a kind measures the benchmark's own launches, and where
    none of them runs --np ranks (stream: one rank of OpenMP threads) they would all run,
    --np ignored (15 launches of 20 s for `binding stream --np 2`)."""
    np = setup.ctx.nranks
    ranks = sorted({s.nranks for v in variants for group in v.groups for s in group})
    if np is not None and np not in ranks:
        raise UsageError(f"--np {np}: no launch of {setup.benchmark} runs {np} ranks (its launches "
                         f"run {', '.join(map(str, ranks))}); drop --np or set the benchmark's "
                         "own counts with --set")


def _expand(exp, variant: str, setup: Setup, asked: bool) -> List[List[LaunchSpec]]:
    """A variant's launches; a default variant this machine cannot run (alternating binding on
    2 CPUs with 2 ranks) is left out and said, one the user asked for is refused."""
    try:
        return exp.expand(variant, setup)
    except UsageError as exc:
        if asked:
            raise
        setup.notes.append(f"default variant '{variant}' left out: {exc}")
        return []


def interleave(variants: List[Variant], rounds: int) -> List[Step]:
    if not 1 <= rounds <= MAX_ROUNDS:
        raise UsageError(f"--rounds {rounds}: expected 1..{MAX_ROUNDS}")
    return [Step(r, v.name, group) for r in range(1, rounds + 1) for v in variants
            for group in v.groups]


def launch_count(steps: List[Step]) -> Tuple[int, int]:
    """(groups, launches) of a plan, for the progress display."""
    return len(steps), sum(len(s.group) for s in steps)
