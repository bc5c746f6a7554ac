"""Helpers of the tracing tests: the built library and plain-MPI program, mpirun, raw files."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest

from helpers import ROOT

LIB = ROOT / "build" / "lib" / "libhpceval-trace.so"
FOREIGN = ROOT / "build" / "tests" / "trace_foreign"


def built() -> None:
    for path in (LIB, FOREIGN):
        if not path.is_file():
            pytest.fail(f"{path} is not built: run 'make build' (make test does)")


def mpirun(nranks: int, argv: List[str], env: Dict[str, str] | None = None, cwd=None,
           timeout: float = 60) -> subprocess.CompletedProcess:
    """mpirun as a user would type it; env is added to ours and exported to the ranks."""
    cmd = ["mpirun", "--oversubscribe", "-np", str(nranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    for name in sorted(env or {}):
        cmd += ["-x", name]
    return subprocess.run(cmd + [str(a) for a in argv], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, cwd=cwd,
                          stdin=subprocess.DEVNULL)


LAYOUT = [["t_begin", "<u8"], ["t_end", "<u8"], ["bytes", "<i8"], ["peer", "<i4"], ["id", "<u2"],
          ["kind", "<u2"]]
CALLS = ["MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Send", "MPI_Recv", "MPI_Wait",
         "MPI_Allreduce", "MPI_Barrier"]


def write_raw(directory: Path, rank: int, nranks: int, events: List[tuple], phases=(),
              offset_ns=(0, 0), t_init=1_000_000, t_finalize=9_000_000, job="00000000000000aa",
              host="h0", dropped=0, cost=50.0) -> Path:
    """A raw file as csrc/trace/trace.c writes it. events: (t_begin, t_end, bytes, peer, id,
    kind) tuples, id a call name (kind 0) or a phase name (kind 1 begin, 2 end)."""
    phases = list(phases)
    dtype = np.dtype([(n, c) for n, c in LAYOUT])
    rows = [(b, e, nb, p, CALLS.index(i) if k == 0 else phases.index(i), k)
            for b, e, nb, p, i, k in events]
    arr = np.array(rows, dtype=dtype)
    header = {"format": "hpceval-trace", "version": 1, "rank": rank, "nranks": nranks,
              "host": host, "pid": 100 + rank, "job": job, "thread_level": 0,
              "clock": "CLOCK_MONOTONIC", "t_init_ns": t_init, "t_finalize_ns": t_finalize,
              "monotonic_at_init_ns": 0, "realtime_at_init_ns": 1_700_000_000 * 10**9,
              "same_host_as_rank0": True, "offset_ns": list(offset_ns),
              "measured_offset_ns": list(offset_ns), "rtt_ns": [0, 0], "event_cost_ns": cost,
              "events": len(arr), "dropped": dropped, "capacity": 100, "phase_marks_other": 0,
              "event_size": 32, "event_layout": LAYOUT, "calls": CALLS, "phases": phases}
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"rank-{rank}.{job}.hpt"
    path.write_bytes(json.dumps(header).encode() + b"\n" + arr.tobytes())
    return path


def calls_of(trace: dict, rank: int, name: str) -> List[dict]:
    return [e for e in trace["traceEvents"]
            if e.get("ph") == "X" and e["tid"] == rank and e["name"] == name]
