#!/usr/bin/env python3
"""hpceval's ping-pong and streaming beside OSU's osu_latency / osu_bw on the virtual cluster,
with Open MPI and with MPICH, intra-node (a one-node cluster with every CPU) and inter-node (two
nodes, one rank each), in alternating rounds (A, B, A, B, ...). Both sides are launched the same
way, from node1, by the MPI's own launcher; Python only starts them and reads their output.

    python3 benchmarks/cluster_ab.py --osu-openmpi DIR --osu-mpich DIR [--rounds 5]

Each DIR holds OSU 7.4's osu_latency and osu_bw built with that MPI's mpicc (outside the
repository, never committed). Needs root (the cluster is made of network namespaces).
Prints the median over rounds of each side's figure and hpceval / OSU."""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from hpceval import vcluster  # noqa: E402
from hpceval.vcluster.net import end_processes  # noqa: E402

VCLUSTER = ROOT / "scripts" / "vcluster"
# MPICH over Debian 12's UCX 1.13 TCP transport often hangs in MPI_Finalize after its output is
# complete (tests/cluster): read until the expected line, then end the launch.
GRACE_S = 3.0
BINS = {"openmpi": ROOT / "build" / "bin", "mpich": ROOT / "build-mpich" / "bin"}


def launcher(mpi: str, hosts: str) -> List[str]:
    # Bound to cores on the one-node cluster only: across nodes Open MPI's --bind-to core puts
    # every node's first rank on CPU 0 of the machine (docs/vcluster.md), so the nodes' own CPU
    # sets place the ranks there, as `hpceval run --hosts` does.
    bind = [] if "," in hosts else (["-bind-to", "core"] if mpi == "mpich" else ["--bind-to", "core"])
    if mpi == "mpich":
        return ["mpiexec.mpich", "-n", "2", "-hosts", hosts, *bind]
    return ["mpirun", "--allow-run-as-root", *bind, "-np", "2", "--host", hosts]


def on_node1(cluster, argv: List[str], done: Callable[[str], bool]) -> List[str]:
    """Output lines of ARGV run on node1, up to the first line that `done` accepts."""
    env = {**os.environ, "HPCEVAL_VCLUSTER_DIR": str(cluster.directory)}
    proc = subprocess.Popen([str(VCLUSTER), "exec", "node1", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    lines, finished = [], False
    for line in proc.stdout:
        lines.append(line)
        if done(line):
            finished = True
            break
    try:
        proc.wait(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    end_processes(cluster.namespaces(), grace=0.5)   # a rank hung in MPI_Finalize, anywhere
    if not finished:
        sys.exit(f"cluster_ab: {' '.join(argv)}: no result (exit {proc.returncode})")
    return lines


def hpceval(cluster, mpi: str, hosts: str, binary: str, args: List[str], metric: str,
            nbytes: int) -> float:
    argv = launcher(mpi, hosts) + [str(BINS[mpi] / f"hpceval-{binary}"), *args]
    recs = [json.loads(l) for l in on_node1(cluster, argv, lambda l: '"type": "end"' in l
                                            or '"type":"end"' in l) if l.startswith("{")]
    for r in recs:
        if r.get("type") == "result" and r["metric"] == metric and r["params"]["bytes"] == nbytes:
            return r["stats"]["median"]
    sys.exit(f"cluster_ab: no {metric} at {nbytes} B from hpceval-{binary}")


def osu(cluster, mpi: str, hosts: str, osu_dir: Path, tool: str, nbytes: int) -> float:
    argv = launcher(mpi, hosts) + [str(osu_dir / tool), "-m", f"{nbytes}:{nbytes}"]
    for line in on_node1(cluster, argv, lambda l: l.split()[:1] == [str(nbytes)]):
        f = line.split()
        if f[:1] == [str(nbytes)]:
            return float(f[1])
    sys.exit(f"cluster_ab: no row {nbytes} from {tool}")


def comparisons(mpi: str, hosts: str, osu_dir: Path) -> Dict[str, tuple]:
    """name -> (hpceval measure, OSU measure) for one MPI and placement."""
    mib = 1 << 20
    pattern = "0-k" if "," in hosts else "0-1"    # p2p's names: across nodes / within one
    pp = ["--refine", "0", "--budget", "0.5"]
    return {
        "8 B latency [us]": (
            lambda c: hpceval(c, mpi, hosts, "pingpong", ["--sizes", "8", *pp], "latency", 8),
            lambda c: osu(c, mpi, hosts, osu_dir, "osu_latency", 8)),
        "1 MiB ping-pong bandwidth [MB/s]": (
            lambda c: hpceval(c, mpi, hosts, "pingpong", ["--sizes", "1M", *pp], "bandwidth", mib),
            lambda c: mib / osu(c, mpi, hosts, osu_dir, "osu_latency", mib)),
        "1 MiB streaming bandwidth [MB/s]": (
            lambda c: hpceval(c, mpi, hosts, "p2p", ["--modes", "stream", "--protocols", "isend",
                                                     "--pattern", pattern,
                                                     "--sizes", "1M", "--budget", "0.5"],
                              "bandwidth", mib),
            lambda c: osu(c, mpi, hosts, osu_dir, "osu_bw", mib)),
    }


def sitting(nodes: int, hosts: str, osu_dirs: Dict[str, Path], rounds: int) -> None:
    with tempfile.TemporaryDirectory(prefix="hpceval-cluster-ab-", dir="/run") as d:
        cluster = vcluster.up(nodes, Path(d) / "vc")
        try:
            for mpi, osu_dir in osu_dirs.items():
                for name, (ours, theirs) in comparisons(mpi, hosts, osu_dir).items():
                    mine, peer = [], []
                    for _ in range(rounds):
                        mine.append(ours(cluster))
                        peer.append(theirs(cluster))
                    m, t = statistics.median(mine), statistics.median(peer)
                    where = "inter-node" if nodes > 1 else "intra-node"
                    print(f"{mpi:8s} {where:10s} {name:34s} hpceval {m:9.4g}  OSU {t:9.4g}  "
                          f"hpceval/OSU {m / t:5.3f}  (rounds: {', '.join(f'{x:.4g}' for x in mine)}"
                          f" | {', '.join(f'{x:.4g}' for x in peer)})", flush=True)
        finally:
            vcluster.down(Path(d) / "vc")
            time.sleep(0.2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--osu-openmpi", required=True, type=Path)
    ap.add_argument("--osu-mpich", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", choices=("intra", "inter"), default=None)
    a = ap.parse_args()
    dirs = {"openmpi": a.osu_openmpi, "mpich": a.osu_mpich}
    if a.only != "inter":
        sitting(1, "node1:2", dirs, a.rounds)
    if a.only != "intra":
        sitting(2, "node1,node2", dirs, a.rounds)


if __name__ == "__main__":
    main()
