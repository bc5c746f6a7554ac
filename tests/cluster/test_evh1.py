"""The EVH1-like proxy across the virtual cluster's two nodes, with Open MPI and MPICH: every
transpose variant crosses the network, and each gives the state one node gives (the blast's
asymmetry to the last bit), every check passing."""
from __future__ import annotations

import pytest

from cluster_helpers import MPICH, MPICH_BIN, OPENMPI, check_exit, launch_benchmark
from helpers import BIN

STACKS = {"openmpi": (OPENMPI, "--host", BIN), "mpich": (MPICH, "-hosts", MPICH_BIN)}
ARGS = ["--grid", "24x16x16", "--steps", "4", "--min-reps", "1", "--max-reps", "2", "--warmup", "0"]


def blast(cluster, name, hosts, n):
    launch, host_opt, bindir = STACKS[name]
    if not (bindir / "hpceval-evh1").is_file():
        pytest.fail(f"{bindir}/hpceval-evh1 is not built: run 'make build build-mpich'")
    run = launch_benchmark(cluster, [*launch, host_opt, hosts, "-n", str(n),
                                     str(bindir / "hpceval-evh1"), *ARGS])
    check_exit(name, run)
    return run


@pytest.mark.parametrize("name", sorted(STACKS))
def test_every_transpose_across_two_nodes(cluster, name):
    run = blast(cluster, name, "node1:1,node2:1", 2)
    assert run.first("meta")["hosts"] == ["node1", "node2"]
    recs = [r for r in run.records if r.get("metric") == "step_time"]
    assert [r["params"]["transpose"] for r in recs] == ["alltoallv", "pairwise", "alltoallw"]
    assert all(r["check"] == "ok" and r["params"]["P"] == 2 for r in recs)
    one = blast(cluster, name, "node1:1", 1)
    alone = next(r for r in one.records if r.get("metric") == "step_time")
    assert {r["asymmetry"] for r in recs} == {alone["asymmetry"]}
