"""POP's whole time step across the virtual cluster's two nodes, with Open MPI and MPICH: the 3-D
halo updates (both variants) and the solver's cross the network, the tracers are kept and the
state equals rank 0's one-block run, every check passing."""
from __future__ import annotations

import pytest

from cluster_helpers import MPICH, MPICH_BIN, OPENMPI, check_exit, launch_benchmark
from helpers import BIN

STACKS = {"openmpi": (OPENMPI, "--host", BIN), "mpich": (MPICH, "-hosts", MPICH_BIN)}
ARGS = ["--grids", "24x16x5", "--steps", "4", "--pgrids", "2x1", "--clinic-halos",
        "levels,aggregate", "--min-reps", "1", "--max-reps", "2", "--warmup", "0"]


@pytest.mark.parametrize("name", sorted(STACKS))
def test_whole_step_across_two_nodes(cluster, name):
    launch, host_opt, bindir = STACKS[name]
    if not (bindir / "hpceval-pop-step").is_file():
        pytest.fail(f"{bindir}/hpceval-pop-step is not built: run 'make build build-mpich'")
    run = launch_benchmark(cluster, [*launch, host_opt, "node1:1,node2:1", "-n", "2",
                                     str(bindir / "hpceval-pop-step"), *ARGS])
    check_exit(name, run)
    assert run.first("meta")["hosts"] == ["node1", "node2"]
    recs = [r for r in run.records if r.get("metric") == "step_time"]
    assert [r["params"]["clinic_halo"] for r in recs] == ["levels", "aggregate"]
    for r in recs:
        assert r["max_rel_diff_vs_one_rank"] < 1e-12
        assert r["T_rel_change"] <= 1e-13 and r["S_rel_change"] <= 1e-13
