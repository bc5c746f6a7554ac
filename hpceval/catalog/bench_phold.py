"""phold: PHOLD, fine-grain parallel discrete-event simulation (docs/nas_phold.md), like PS, the
network simulator of the SP2 study: committed events per second, messages per event and the
time spent synchronising, swept over the remote fraction and the lookahead (the fine-grain regime
where latency decides), with YAWNS windows and with null messages."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (expected_seconds, harness_bytes, launch_timeout,
                                    parallel_seconds, rank_counts, ranks_sweep, repetition_args,
                                    words)
from hpceval.catalog.options import options
from hpceval.catalog.params import ascii_float
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

METRICS = 3                 # event_rate, messages_per_event, sync_share
TYPICAL_EVENT_S = 1.5e-7    # this machine's: 7 M events/s on one rank
SLOW_EVENT_S = 1e-6         # a pessimistic event (time limit): 3-10x this machine's
MAX_EVENTS = 1e11           # the binary's own bound on a run
PASSED = ("lps", "population", "end", "mean", "seed")


def number_list(text: Any, what: str, lo: float, hi: float, open_lo: bool) -> List[float]:
    """A comma list of numbers in [lo, hi] ((lo, hi] with open_lo)."""
    out = []
    for item in words(text, None, what):
        try:
            v = ascii_float(item)
        except ValueError:
            raise UsageError(f"--set {what}: '{item}' is not a number") from None
        if not (lo < v if open_lo else lo <= v) or v > hi:
            raise UsageError(f"--set {what}: {item} is outside {'(' if open_lo else '['}{lo:g}, "
                             f"{hi:g}]")
        out.append(v)
    return out


def _events(v: Dict[str, Any], lookahead: float) -> float:
    """About how many events a run commits: each LP one per (mean + lookahead) of time."""
    return int(v["lps"]) * int(v["population"]) * (1 + float(v["end"]) / (float(v["mean"])
                                                                          + lookahead))


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    lookaheads = number_list(v["lookahead"], "lookahead", 0.0, 1e12, True)
    remotes = number_list(v["remote"], "remote", 0.0, 1.0, False)
    syncs = v["sync"]
    if float(v["end"]) <= 0:
        raise UsageError("--set end: the end time must be positive")
    events = max(_events(v, la) for la in lookaheads)
    if events > MAX_EVENTS:
        raise UsageError(f"phold: about {events:.3g} events per run, more than {MAX_EVENTS:.0e}: "
                         "lower lps, population or end, or raise the lookahead")
    points = len(lookaheads) * len(remotes) * len(syncs)
    fixed = [a for name in PASSED for a in b.param(name).to_arg(v[name])]
    fixed += ["--lookahead", ",".join(f"{x:g}" for x in lookaheads),
              "--remote", ",".join(f"{x:g}" for x in remotes), "--sync", ",".join(syncs)]
    fixed += repetition_args(b, v)
    # every sample of every point, and the sequential reference, may be a slow run
    runs = points * (int(v["min-reps"]) + int(v["warmup"]) + 1)
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        if int(v["lps"]) < n:
            raise UsageError(f"phold: {v['lps']} LPs for {n} ranks: every rank needs one")
        specs.append(LaunchSpec(
            b.name, f"phold np={n} {v['lps']} LPs, {points} points", "phold", fixed, n, "core",
            expected_results=METRICS * points,
            estimate_s=expected_seconds(v, points, parallel_seconds(events * TYPICAL_EVENT_S, n,
                                                                    ctx)),
            timeout_s=launch_timeout(v, points)
            + 3.0 * runs * parallel_seconds(events * SLOW_EVENT_S, n, ctx)))
    return specs


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    """Rank 0 also runs the sequential reference over every LP (measured on one rank: 16 B an
    LP and 21 B an event; twice that for the queues' growth by doubling)."""
    return int(v["lps"]) * (32 + 48 * int(v["population"])) + harness_bytes(v)


register_benchmark(Benchmark(
    "phold", "proxies",
    "PHOLD parallel discrete-event simulation (like the SP2 study's PS simulator): LPs in blocks "
    "over the ranks, each event schedules one at a random LP (remote share) or its own after an "
    "exponential delay plus a lookahead; conservative sync by YAWNS windows (allreduce) or null "
    "messages; counter-based draws, so every rank count commits the same events, checked "
    "against a sequential run; committed events/s, messages per event, time synchronising",
    options("phold", "lps population end mean lookahead remote sync seed") + (ranks_sweep(),),
    _plan, ranks="--np or the ranks sweep (default 2)", memory=_memory,
    tiny=("lps=64", "end=4", "lookahead=0.5", "remote=0.5"),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("lookahead=1", "remote=0.5"),
    headline="committed events per second, messages per event, synchronisation share",
    doc="docs/nas_phold.md"))


# The study: PHOLD over every rung (64Ki LPs: one per rank up to 65,536 ranks).
register_study("phold", lps=65536, end=5, lookahead="0.1,1", remote="0.1,0.5",
               ranks="ladder", min_reps=2, max_reps=5)
