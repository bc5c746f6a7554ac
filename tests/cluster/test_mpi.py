"""Real MPI programs across the nodes, with Open MPI and with MPICH (Hydra), launched from node1
with scripts/vcluster-ssh as the launcher's agent. Inter-node traffic must cross the network:
its 8-byte latency is at least 5x the intra-node (shared-memory) latency."""
from __future__ import annotations

import shutil

import pytest

from cluster_helpers import MPICH, MPICH_BIN, OPENMPI, launch_benchmark, pingpong_8b
from cluster_helpers import check_exit as _check_exit
from helpers import BIN
# (launcher words, host-list option, binaries, the plain launcher and its bind-to-core option);
# the agent options are also in each node's environment, so the latency runs leave them out as a
# user would.
STACKS = {
    "openmpi": (OPENMPI, "--host", BIN, ["mpirun"], ["--bind-to", "core"]),
    "mpich": (MPICH, "-hosts", MPICH_BIN, ["mpiexec.mpich"], ["-bind-to", "core"]),
}


@pytest.fixture(params=sorted(STACKS))
def stack(request):
    launch, host_opt, bindir, plain, bind = STACKS[request.param]
    if not shutil.which(launch[0]):
        pytest.skip(f"{launch[0]} is not installed: 'make test' installs Open MPI and MPICH")
    if not (bindir / "hpceval-pingpong").is_file():
        pytest.fail(f"{bindir}/hpceval-pingpong is not built: run 'make build build-mpich' "
                    "(make test does)")
    return request.param, launch, host_opt, bindir, plain, bind


def test_four_ranks_two_per_node(cluster, stack):
    name, launch, host_opt, bindir, _, _ = stack
    run = launch_benchmark(cluster, [*launch, host_opt, "node1:2,node2:2", "-n", "4",
                                     str(bindir / "hpceval-pingpong"), "--sizes", "8",
                                     "--budget", "0.05", "--min-reps", "1", "--max-reps", "3",
                                     "--warmup", "0"])
    _check_exit(name, run)
    meta = run.first("meta")
    assert meta["nranks"] == 4 and meta["hosts"] == ["node1", "node1", "node2", "node2"], name
    # Each node's ranks run on that node's CPUs (the node's CPU set, not the launcher's binding).
    cpus = {n.name: n.cpus for n in cluster.cluster.nodes}
    assert all(cpu in cpus[host] for host, cpu in zip(meta["hosts"], meta["cpus"])), meta


def test_inter_node_traffic_crosses_the_network(cluster, one_node, stack):
    name, _, host_opt, bindir, plain, bind = stack
    inter = pingpong_8b(cluster, [*plain, host_opt, "node1:1,node2:1", "-n", "2"], bindir)
    # Intra-node on a node with two CPUs, a rank bound to each: on a 2-core machine the two-node
    # cluster has one CPU per node, and two polling ranks on one CPU measure the scheduler, not
    # shared memory. A one-node cluster has no other node to collide with (pitfall 1).
    intra = pingpong_8b(one_node, [*plain, *bind, host_opt, "node1:2", "-n", "2"], bindir)
    assert inter["hosts"] == ["node1", "node2"] and intra["hosts"] == ["node1", "node1"]
    print(f"{name}: 8 B latency min (median) intra-node {intra['us']:.2f} "
          f"({intra['median_us']:.2f}) us, inter-node {inter['us']:.2f} ({inter['median_us']:.2f}) us")
    assert inter["us"] >= 5 * intra["us"], (name, intra, inter)
    _check_exit(name, inter["run"])
    _check_exit(name, intra["run"])
