"""The machine parameters a prediction uses, taken from stored runs of one machine: the time of
one message (LogGP when the run measured it, else the piecewise Hockney fit of its ping-pong),
what ranks further apart than 0 and 1 add to it (the distance map, where a run has one),
the collectives' cost per size and rank count (measured where the run has them, else built from
the message time), and each proxy's compute rates from its one-rank runs (the models read
those from `runs` themselves).

Every parameter remembers where it came from (`sources`), so a prediction says what it rests on.
Times are microseconds."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from hpceval.analysis.headlines import select, value
from hpceval.errors import UsageError


def _run_label(run: dict) -> str:
    return f"run {run.get('id')}"


def _message_model(runs: List[dict]) -> Tuple[Callable[[float], float], str, Optional[dict]]:
    """us per message of n bytes between two ranks, where it came from, and the LogGP
    parameters when they were measured."""
    from hpceval.analysis import loggp
    for run in runs:
        params = loggp.loggp_params(run)
        if params:
            return (lambda n, p=params: loggp.message_time(p, n)), \
                f"LogGP ({params.get('where', 'ranks 0-1')}) of {_run_label(run)}", params
    from hpceval.analysis.commmodel import run_models
    for run in runs:
        model = run_models(run).get("pingpong")
        if model is not None:
            return (lambda n, m=model: float(m.predict([max(n, 1)])[0])), \
                f"ping-pong (piecewise Hockney fit) of {_run_label(run)}", None
    raise UsageError("no run of this machine measured ping-pong or LogGP: run "
                     "'hpceval run pingpong' (or loggp) first")


def _distance_map(runs: List[dict]) -> Tuple[Dict[int, float], str]:
    """us of the smallest message from rank 0 to each rank of the newest distance map of rank
    0 (at scale a sample of ranks: the plan's), and where it came from; {} without one."""
    for run in runs:
        recs = [r for r in select(run.get("records") or [], "distance", "latency")
                if r["params"].get("src") == 0 and value(r)]
        if recs and any(r["params"]["dst"] == 1 for r in recs):
            small = min(r["params"]["bytes"] for r in recs)
            return ({r["params"]["dst"]: value(r) for r in recs if r["params"]["bytes"] == small},
                    f"distance map ({small} B, rank 0 to {len(recs)} ranks) of {_run_label(run)}")
    return {}, ""


# Messages an alltoall(v) posts at once per round, by the runs' MPI (fingerprint's mpi flavour):
# SimGrid's MPICH selector runs alltoallv__bruck, which posts 4 at a time; MPICH's scattered
# algorithm MPIR_CVAR_ALLTOALL_THROTTLE (32). Any other (Open MPI's linear alltoallv): all.
THROTTLE = {"smpi": 4, "mpich": 32}


@dataclass
class Machine:
    """What the models ask of a machine; built by machine_params()."""
    runs: List[dict]                               # newest first: each parameter from the first
    message: Callable[[float], float]
    sources: Dict[str, str] = field(default_factory=dict)
    fingerprint: str = ""
    loggp: Optional[dict] = None
    layouts: Dict[tuple, str] = field(default_factory=dict)   # (model, ranks) -> "PxQ"
    distance: Dict[int, float] = field(default_factory=dict)  # rank 0 -> rank d: us (small)
    throttle: Optional[int] = None    # alltoall(v) messages posted per round (None: all at once)

    def apart(self, ranks: int, *offsets: int, aligned: bool = False,
              mean: bool = False) -> float:
        """us that a message between ranks d apart (d in `offsets`, among `ranks`) takes beyond
        one between ranks 0 and 1 (the pair of the message time), from rank 0's distance map;
        0 without a map. A pair d apart takes rank 0 to rank d's time, and unless the pairs are
        `aligned` (recursive doubling's r XOR d, a transpose among the aligned ranks of a row)
        a pair that straddles a block boundary takes the time of the block's end: the blocks
        are the ranks before each rank where the map's time steps up (a leaf switch's end).
        The slowest pair's extra (everyone waits for it), or with `mean` the pairs' mean (a
        pipeline's path crosses some of each). A rank the map did not measure (sampled) takes
        the nearest measured rank below it (the sample keeps ranks 2^j apart)."""
        if not self.distance or 1 not in self.distance:
            return 0.0
        near = sorted(self.distance)
        def extra(d: int) -> float:
            d = max((r for r in near if r <= d), default=near[0])
            return max(self.distance[d] - self.distance[1], 0.0)
        blocks = [] if aligned else [b for b in near[1:] if b < ranks and self.distance[b] > 1.01
                                     * max(self.distance[r] for r in near if r < b)]
        def pair(r: int) -> float:                 # ranks r, r + d for each d; the slowest
            return max(max([extra(d)] + [extra(b) for b in blocks if r // b != (r + d) // b])
                       for d in offsets if 0 < d < ranks and r + d < ranks)
        starts = [r for r in range(ranks) if any(0 < d < ranks and r + d < ranks for d in offsets)]
        if not starts:
            return 0.0
        if aligned:
            return pair(0)
        each = [pair(r) for r in starts]
        return sum(each) / len(each) if mean else max(each)

    def exchange(self, sizes: List[float], apart: float = 0.0) -> float:
        """us of messages posted at once by one rank (a halo update) to ranks whose farthest
        adds `apart` (Machine.apart): with LogGP, the overheads and the bytes are serial and
        one latency overlaps the rest, sum(o_s + o_r) + L + apart + G sum(bytes); with only a
        message time, the messages one after the other (an upper bound)."""
        if not sizes:
            return 0.0
        g = self.loggp
        if g:
            return (len(sizes) * (g["o_s_us"] + g["o_r_us"]) + g["L_us"] + apart
                    + g["G_us_per_byte"] * sum(sizes))
        return sum(self.message(n) for n in sizes) + apart

    def posted(self, sizes: List[float]) -> float:
        """us that messages posted at once keep their rank and its link busy, the latency left
        out: what they add to each stage of a pipeline whose messages are already on their way
        (eager sends: the latency is paid once, in the fill). With LogGP sum(o_s + o_r) +
        G sum(bytes); with only a message time, each message's time beyond a 0-byte one's."""
        if not sizes:
            return 0.0
        g = self.loggp
        if g:
            return len(sizes) * (g["o_s_us"] + g["o_r_us"]) + g["G_us_per_byte"] * sum(sizes)
        return sum(max(self.message(n) - self.message(0), 0.0) for n in sizes)

    def collective(self, op: str, nranks: int, nbytes: float, stride: int = 1) -> float:
        """us of one collective on nranks at nbytes (per rank, or per pair for alltoall(v)),
        the ranks `stride` apart in the world: measured (interpolated in log size) where a run
        has that op at that rank count (measured on consecutive ranks: what the distance map
        adds at the stride is added), else the algorithm on the message time: recursive
        doubling (step k to the rank 2^k away); alltoall(v) as MPICH's scattered exchange,
        rounds of `throttle` messages posted at once (Machine.exchange), one after the other."""
        if nranks <= 1:
            return 0.0
        steps = math.ceil(math.log2(nranks))
        span = stride * (nranks - 1) + 1
        pairwise = op in ("alltoall", "alltoallv")
        offsets = range(1, nranks) if pairwise else [1 << k for k in range(steps)]
        def added(step: int) -> float:             # the distance map's extra at this stride
            each = [self.apart(span, step * d, aligned=True) for d in offsets]
            return max(each, default=0.0) if pairwise else sum(each)
        for run in self.runs:
            recs = [r for r in select(run.get("records") or [], "collectives", "latency",
                                      op=op, nranks=nranks) if value(r)]
            if len(recs) >= 2 or (recs and recs[0]["params"]["bytes"] == nbytes):
                self.sources[f"{op} at {nranks} ranks"] = f"collectives of {_run_label(run)}"
                return (_interpolate([(r["params"]["bytes"], value(r)) for r in recs], nbytes)
                        + (added(stride) - added(1) if stride > 1 else 0.0))
        self.sources[f"{op} at {nranks} ranks"] = "modelled from the message time"
        if not pairwise:
            return steps * self.message(nbytes) + added(stride)
        width, total = self.throttle or nranks, 0.0
        for start in range(0, nranks, width):     # a round: the ranks start .. start+width-1 ahead
            ahead = range(max(start, 1), min(start + width, nranks))
            total += self.exchange([nbytes] * len(ahead), self.apart(
                span, *(stride * d for d in ahead), aligned=True))
        return total


def grouped_sources(sources: Dict[str, str]) -> Dict[str, str]:
    """'allreduce at 64 ranks', 'allreduce at 128 ranks' with one source -> 'allreduce at 64,
    128 ranks': the parameters a prediction used, one line per source."""
    out: Dict[str, str] = {}
    groups: Dict[Tuple[str, str], List[str]] = {}
    for key, src in sources.items():
        what, sep, rest = key.partition(" at ")
        if sep and rest.endswith(" ranks") and rest[:-6].isdigit():
            groups.setdefault((what, src), []).append(rest[:-6])
        else:
            out[key] = src
    for (what, src), counts in groups.items():
        out[f"{what} at {', '.join(counts)} ranks"] = src
    return out


def _interpolate(points: List[Tuple[float, float]], x: float) -> float:
    """Piecewise linear in log-log through the points; linear extrapolation at the ends."""
    pts = sorted((max(b, 1.0), t) for b, t in points)
    if len(pts) == 1:
        return pts[0][1]
    xs, ys = np.log([b for b, _ in pts]), np.log([t for _, t in pts])
    lx = math.log(max(x, 1.0))
    i = int(np.clip(np.searchsorted(xs, lx) - 1, 0, len(xs) - 2))
    slope = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) if xs[i + 1] > xs[i] else 0.0
    return float(math.exp(ys[i] + slope * (lx - xs[i])))


def machine_runs(runs: List[dict], machine: Optional[dict]) -> List[dict]:
    """The runs of `machine`'s fingerprint (default: the newest run's), newest first."""
    if not runs:
        raise UsageError("no runs stored: run 'hpceval run quick' first")
    ref = machine or max(runs, key=lambda r: r.get("id") or 0)
    fp = (ref.get("fingerprint") or {}).get("hash")
    same = [r for r in runs if (r.get("fingerprint") or {}).get("hash") == fp]
    return sorted(same, key=lambda r: (r is not ref, -(r.get("id") or 0)))


def machine_params(runs: List[dict], machine: Optional[dict] = None) -> Machine:
    chosen = machine_runs(runs, machine)
    message, source, loggp = _message_model(chosen)
    fp = (chosen[0].get("fingerprint") or {})
    distance, where = _distance_map(chosen)
    return Machine(chosen, message, {"message time": source,
                                     **({"ranks apart": where} if where else {})},
                   f"{fp.get('hostname', '?')} ({str(fp.get('hash', ''))[:12]})", loggp,
                   distance=distance, throttle=THROTTLE.get((fp.get("mpi") or {}).get("flavour")))
