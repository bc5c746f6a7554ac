"""The machine parameters a prediction uses, taken from stored runs of one machine: the time of
one message (LogGP when the run measured it, else the piecewise Hockney fit of its ping-pong),
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


@dataclass
class Machine:
    """What the models ask of a machine; built by machine_params()."""
    runs: List[dict]                               # newest first: each parameter from the first
    message: Callable[[float], float]
    sources: Dict[str, str] = field(default_factory=dict)
    fingerprint: str = ""
    loggp: Optional[dict] = None
    layouts: Dict[tuple, str] = field(default_factory=dict)   # (model, ranks) -> "PxQ"

    def exchange(self, sizes: List[float]) -> float:
        """us of messages posted at once by one rank (a halo update): with LogGP, the
        overheads and the bytes are serial and one latency overlaps the rest,
        sum(o_s + o_r) + L + G sum(bytes); with only a message time, the messages one after
        the other (an upper bound)."""
        if not sizes:
            return 0.0
        g = self.loggp
        if g:
            return (len(sizes) * (g["o_s_us"] + g["o_r_us"]) + g["L_us"]
                    + g["G_us_per_byte"] * sum(sizes))
        return sum(self.message(n) for n in sizes)

    def collective(self, op: str, nranks: int, nbytes: float) -> float:
        """us of one collective on nranks at nbytes (per rank, or per pair for alltoall):
        measured (interpolated in log size) where a run has that op at that rank count, else
        the textbook algorithm on the message time (recursive doubling; pairwise exchange)."""
        if nranks <= 1:
            return 0.0
        for run in self.runs:
            recs = [r for r in select(run.get("records") or [], "collectives", "latency",
                                      op=op, nranks=nranks) if value(r)]
            if len(recs) >= 2 or (recs and recs[0]["params"]["bytes"] == nbytes):
                self.sources[f"{op} at {nranks} ranks"] = f"collectives of {_run_label(run)}"
                return _interpolate([(r["params"]["bytes"], value(r)) for r in recs], nbytes)
        self.sources[f"{op} at {nranks} ranks"] = "modelled from the message time"
        steps = math.ceil(math.log2(nranks))
        if op in ("alltoall", "alltoallv"):
            return (nranks - 1) * self.message(nbytes)
        return steps * self.message(nbytes)


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
    return Machine(chosen, message, {"message time": source},
                   f"{fp.get('hostname', '?')} ({str(fp.get('hash', ''))[:12]})", loggp)
