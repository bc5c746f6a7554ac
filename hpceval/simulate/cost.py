"""What a simulated launch costs in wall time (#45 item 2). SMPI runs every rank of a launch as
a context of one single-threaded process, so a launch's wall time is not its simulated time:

    wall = start + start_per_rank x P + B x max(measure, results x per_result)

`start` and `start_per_rank`: smpirun's own start-up, measured once per host with two small
smpirun launches on the run's platform (1 and up to 64 ranks) and kept in the data directory
(CALIBRATION, re-measured when missing). `measure`: the planner's measuring time (what a rank
computes runs on this host, one rank after another). `per_result`: wall seconds per result a
busy rank, the simulated operations a point takes (a point stops after its few noiseless
samples, so a shorter point budget does not shorten it). B, the busy ranks: P, but 2 for a
launch that measures one pair while the others wait blocked (PAIR_KINDS: a rank blocked in SMPI
costs the simulation nothing). It is learned from the store: the median over this host's
earlier simulated launches of a benchmark, (elapsed - start-up) / (records x B);
where the store has none, PER_RESULT_S (measured here, a 2-core VM, fat tree 32 x 2; SMPI 3.32)
or DEFAULT_PER_RESULT_S."""
from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, Optional

CALIBRATION = "calibration.json"   # beside the simulated platforms, per host
CAL_RANKS = 64                     # the larger calibration launch (fewer on a smaller platform)
LAUNCH_OVERHEAD_S = 0.15           # hpceval's side of a launch: spawning, parsing, storing
# Wall seconds per result per busy rank, from a 90 s simulated study (64 ranks) here (keyed as
# `kind`: a label's words before its rank count, else the benchmark): p2p's 0-1 pattern over
# every mode and protocol is the dearest (RMA streams in SMPI); mem-latency's chases and
# sweep's cells run on this host, rank after rank; pingpong's 0.004 a rank at 4 ranks is 0.008
# a busy rank
# msgrate's 64-message windows at the study's settings: 1.9 (2 ranks on one host: its points
# ran to max-reps 200) and 0.54 (4 ranks on two hosts), fat tree 32 x 2; netmap and nodecheck
# (RESULT_RANKS) at their defaults, flat N x 1: netmap 0.105 s a result at 8 nodes and 0.094 at
# 16 (two busy ranks a result), nodecheck 0.054 at 8 nodes (one); bisection 0.015 (8 matchings
# at 64 KiB, 8 nodes: 1.4 s for 40 results, two busy ranks a result), congestion 0.003 (every
# rank busy: 0.4 s for 9 results at 8 nodes, 64 KiB and 16 KiB aggressors); rma 0.17 (88
# results, every op and mode at 8 B .. 1 MiB, study settings, fat tree 32 x 2: 30 s, two ranks)
# ps at the study's 40,000 cycles (32 x 32 routers, min-reps 2, max-reps 3): every rank sends
# its four neighbours a message a cycle, so a result costs cycles, not the point's budget. Fat
# tree N/2 x 2, one load (two results), scaled to 40,000 cycles: 4.5 at 16 ranks (4,000
# cycles), 6.3 at 16 and 4.3 at 32 (8,000), and 3.5 in the 1,024-rank study (16 ranks: 1,107 s
# for 20 results); 12.6 at 4 and 6.2 at 8 ranks (4,000 cycles: the sequential reference and
# every rank's routers, a fixed cost, weigh more there). Fewer cycles cost proportionally less.
PER_RESULT_S = {"pingpong": 0.008, "p2p": 0.006, "p2p 0-1": 0.046, "distance": 0.005,
                "hotspot": 0.04, "random2": 0.033, "collectives": 0.004, "halo": 0.053,
                "mem-latency": 0.7, "sweep": 0.5, "msgrate": 1.0, "netmap": 0.05, "ps": 4.5,
                "nodecheck": 0.05, "bisection": 0.015,
                "congestion": 0.003, "rma": 0.17}
DEFAULT_PER_RESULT_S = 0.05
# Launches that measure ranks 0 and 1 (pair_ranks: pingpong, loggp, eager; p2p's 0-1 and 0-k
# patterns) while the others wait blocked in MPI_Barrier or MPI_Finalize. Not distance: it
# measures a pair at a time but every rank joins a barrier after each pair (csrc/comm/distance.c).
PAIR_KINDS = frozenset({"pingpong", "loggp", "eager", "p2p 0-1", "p2p 0-k"})
LEARNED_FROM = 200                 # the latest launches of a benchmark the median is taken over


def kind(benchmark: str, label: str) -> str:
    """What a launch's cost is known by: its label's words before ' np=' ('p2p 0-1'), else its
    benchmark."""
    head = label.split(" np=", 1)[0]
    return head if head != label and head != benchmark else benchmark


# Launches whose every result is the work of a few ranks whatever the launch's size, the
# simulator running them one after another: netmap's pair (a phase's pairs measure at once in
# simulated time, but one process runs all their messages) and nodecheck's rank (each rank's
# kernels run on this host in turn). Its wall time per result did not grow from 8 to 16 nodes.
# bisection: a pair's record (and a matching's aggregate, the same exchanges again) is its pair's.
RESULT_RANKS = {"netmap": 2, "nodecheck": 1, "bisection": 2}


def busy(benchmark: str, label: str, nranks: int) -> int:
    """The ranks of a launch that cost the simulation wall time (PAIR_KINDS: two; RESULT_RANKS:
    a result's own)."""
    k = kind(benchmark, label)
    if k in RESULT_RANKS:
        return min(nranks, RESULT_RANKS[k])
    return min(nranks, 2) if k in PAIR_KINDS else nranks


def _smpirun_s(sim: Dict[str, Any], np: int, binary: str) -> float:
    from hpceval.simulate.session import launch_cfg
    argv = [binary, "--sizes", "8", "--warmup", "0", "--min-reps", "1", "--max-reps", "1",
            "--budget", "0.00001", "--modes", "pingpong", "--protocols", "send",
            "--pattern", "0-1" if np > 1 else "ring", "--refine", "0"]
    start = time.monotonic()
    subprocess.run(["smpirun", "-np", str(np), "-platform", sim["platform_file"], "-hostfile",
                    sim["hostfile"], *launch_cfg(sim, argv, np), "--log=root.thres:critical",
                    *argv], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120, check=False)
    return time.monotonic() - start


def calibration(sim: Dict[str, Any], binary: str) -> Dict[str, float]:
    """smpirun's start-up on this host: {start_s, per_rank_s}, measured once (two launches of
    one point of p2p, 2 and up to CAL_RANKS ranks) and kept beside the platforms."""
    path, known = _calibrations(sim)
    host = socket.gethostname()
    if _usable(known.get(host)):
        return known[host]
    big = max(min(CAL_RANKS, sim["nodes"] * sim["ppn"]), 2)
    small_s, big_s = _smpirun_s(sim, 2, binary), _smpirun_s(sim, big, binary)
    per_rank = max((big_s - small_s) / max(big - 2, 1), 0.0)
    mine = {"start_s": round(max(small_s - 2 * per_rank, 0.0) + LAUNCH_OVERHEAD_S, 4),
            "per_rank_s": round(per_rank, 6), "measured_ranks": big}
    known[host] = mine
    part = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        part.write_text(json.dumps(known, indent=1))
        part.replace(path)
    except OSError:
        pass                                   # measured again next time
    return mine


def _calibrations(sim: Dict[str, Any]):
    """calibration.json's path (beside the simulated platforms) and what it holds per host."""
    path = Path(sim["platform_file"]).parent.parent / CALIBRATION
    try:
        known = json.loads(path.read_text())
    except (OSError, ValueError):
        known = {}
    return path, known if isinstance(known, dict) else {}


def _usable(cal: Any) -> bool:
    return isinstance(cal, dict) and {"start_s", "per_rank_s"} <= set(cal)


def stored_calibration(sim: Dict[str, Any]) -> Optional[Dict[str, float]]:
    """This host's calibration as calibration.json keeps it, None when it has none (nothing is
    measured: `run --dry-run --simulate`)."""
    cal = _calibrations(sim)[1].get(socket.gethostname())
    return cal if _usable(cal) else None


def learned(store, host: str) -> Dict[str, float]:
    """Wall seconds per result per busy rank of this host's earlier simulated launches, per
    kind (the median of its latest LEARNED_FROM that ended ok with records)."""
    rows = store.simulated_launches(host)
    per: Dict[str, list] = {}
    for bench, label, nranks, elapsed, startup, n in rows:
        key = kind(bench, label)
        if n and len(per.setdefault(key, [])) < LEARNED_FROM:
            per[key].append(max(elapsed - startup, 0.0) / (n * max(busy(bench, label, nranks), 1)))
    return {b: statistics.median(v) for b, v in per.items() if v}


class SimCost:
    """A simulated launch's wall time on this host (the module's model)."""

    def __init__(self, start_s: float, per_rank_s: float, per_result: Dict[str, float]):
        self.start_s, self.per_rank_s = start_s, per_rank_s
        self.per_result = {**PER_RESULT_S, **per_result}
        self.learned = set(per_result)

    def startup_s(self, nranks: int) -> float:
        return self.start_s + self.per_rank_s * nranks

    def note(self) -> str:
        learned = (f"learned from earlier simulated launches here for {len(self.learned)} "
                   "kinds, else from" if self.learned else "from")
        return (f"simulated start-up {self.start_s:.2f} s + {self.per_rank_s * 1e3:.2f} ms a "
                f"rank (smpirun's, {CALIBRATION}); a result's cost {learned} the table "
                "measured here")

    def measure_s(self, benchmark: str, label: str, nranks: int, results: int,
                  planned: float) -> float:
        each = self.per_result.get(kind(benchmark, label),
                                   self.per_result.get(benchmark, DEFAULT_PER_RESULT_S))
        return busy(benchmark, label, nranks) * max(planned, results * each)


def sim_cost(sim: Dict[str, Any], binary: Optional[str],
             store: Optional[Any]) -> Optional[SimCost]:
    """The model with smpirun's start-up measured (once) when `binary` is given, else as
    calibration.json keeps it (None when it has none); results' costs learned from `store`."""
    cal = calibration(sim, binary) if binary is not None else stored_calibration(sim)
    if cal is None:
        return None
    return SimCost(cal["start_s"], cal["per_rank_s"],
                   learned(store, socket.gethostname()) if store is not None else {})
