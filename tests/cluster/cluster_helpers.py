"""Run commands on the virtual cluster's nodes through scripts/vcluster, as a user would."""
from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence

from helpers import ROOT
from hpceval.vcluster import Cluster
from hpceval.vcluster.net import end_processes

VCLUSTER = ROOT / "scripts" / "vcluster"
AGENT = ROOT / "scripts" / "vcluster-ssh"
MPICH_BIN = ROOT / "build-mpich" / "bin"
# The launchers from node1, with the virtual cluster's ssh agent.
OPENMPI = ["mpirun", "--mca", "plm_rsh_agent", str(AGENT)]
MPICH = ["mpiexec.mpich", "-launcher", "ssh", "-launcher-exec", str(AGENT)]
# Hydra hangs when its launcher fails: every MPI launch runs under this limit.
LAUNCH_TIMEOUT = 60
# How long a program may take to exit after its last record. Debian 12's UCX 1.13 often hangs in
# MPI_Finalize over TCP (openucx/ucx#8738; on the bare machine too, with UCX_TLS=tcp,self).
FINALIZE_GRACE = 4.0


class VCluster:
    """A cluster that is up, and `scripts/vcluster` run against its state directory."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.env = {**os.environ, "HPCEVAL_VCLUSTER_DIR": cluster.directory}

    def run(self, *args: str, timeout: float = LAUNCH_TIMEOUT) -> subprocess.CompletedProcess:
        return subprocess.run([str(VCLUSTER), *args], capture_output=True, text=True,
                              env=self.env, cwd=ROOT, timeout=timeout, stdin=subprocess.DEVNULL)

    def on(self, node: str, *words: str, timeout: float = LAUNCH_TIMEOUT) -> str:
        """stdout of a command run on a node; it must succeed."""
        proc = self.run("exec", node, *words, timeout=timeout)
        assert proc.returncode == 0, f"exec {node} {words}: {proc.returncode}\n{proc.stderr}"
        return proc.stdout


def records(text: str) -> List[Dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@dataclass
class Launch:
    records: List[Dict]
    returncode: int              # -9 when it had to be ended after its records were complete
    hung_in_finalize: bool

    def first(self, kind: str) -> Dict:
        return next(r for r in self.records if r["type"] == kind)


def _read_records(proc: subprocess.Popen, timeout: float) -> List[str]:
    """stdout lines until the benchmark's end record (or EOF), within `timeout`. Read from the
    descriptor itself: a buffered readline after select() keeps the lines that came in the same
    read in its buffer, where the next select() cannot see them, so a program that then hung in
    MPI_Finalize looked as if it had stopped before its last records."""
    fd, text, lines = proc.stdout.fileno(), b"", []
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and sel.select(deadline - time.monotonic()):
            chunk = os.read(fd, 1 << 16)
            text += chunk
            *done, text = text.split(b"\n")
            lines += [l.decode() + "\n" for l in done]
            if not chunk or any('"type": "end"' in l for l in lines):
                break
    return lines + ([text.decode()] if text else [])


def launch_benchmark(vc: VCluster, words: Sequence[str]) -> Launch:
    """Run an MPI benchmark from node1; its JSON records, and whether it exited by itself. A run
    still alive FINALIZE_GRACE s after its end record is ended with every process of the cluster
    (a hang before that record fails the test)."""
    proc = subprocess.Popen([str(VCLUSTER), "exec", "node1", *words], stdout=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, env=vc.env, cwd=ROOT)
    lines = _read_records(proc, LAUNCH_TIMEOUT)
    try:
        lines.append(proc.communicate(timeout=FINALIZE_GRACE)[0])
        hung = False
    except subprocess.TimeoutExpired:
        end_processes([n.ns for n in vc.cluster.nodes])
        lines.append(proc.communicate()[0])
        hung = True
    recs = records("".join(lines))
    assert recs and recs[-1]["type"] == "end" and recs[-1]["status"] == "ok", lines
    return Launch(recs, proc.returncode, hung)


def pingpong_8b(vc: VCluster, launch: Sequence[str], bindir: Path) -> Dict:
    """8-byte ping-pong between ranks 0 and 1 launched from node1: the ranks' hosts and CPUs and
    the latency (us): the minimum over samples is the path's own cost (the machine is shared, and
    a sample that lost its CPU to another process measures the scheduler), the median beside it."""
    run = launch_benchmark(vc, [*launch, str(bindir / "hpceval-pingpong"), "--sizes", "8",
                                "--budget", "0.3", "--min-reps", "5"])
    lat = next(r for r in run.records if r.get("metric") == "latency")
    meta = run.first("meta")
    return {"hosts": meta["hosts"], "cpus": meta["cpus"], "us": lat["stats"]["min"],
            "median_us": lat["stats"]["median"], "run": run}


def check_exit(name: str, run: Launch) -> None:
    """Open MPI must exit cleanly; MPICH may hang in MPI_Finalize over TCP (UCX 1.13's bug,
    openucx/ucx#8738, docs/vcluster.md), which is reported rather than failed."""
    if run.hung_in_finalize and name == "mpich":
        print(f"{name}: hung in MPI_Finalize after its records (UCX TCP bug); ended by the test")
        return
    assert run.returncode == 0 and not run.hung_in_finalize, (name, run.returncode)
