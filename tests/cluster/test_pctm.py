"""The PCTM-like coupled model across the virtual cluster's two nodes, with Open MPI and MPICH:
the concurrent layout puts the ocean on one node and the atmosphere, land and ice on the other,
so every coupling crosses the network; both layouts pass every check, and the coupler keeps the
exchanged integrals to round-off."""
from __future__ import annotations

import pytest

from cluster_helpers import MPICH, MPICH_BIN, OPENMPI, check_exit, launch_benchmark
from helpers import BIN

STACKS = {"openmpi": (OPENMPI, "--host", BIN), "mpich": (MPICH, "-hosts", MPICH_BIN)}
ARGS = ["--ocean", "32x24", "--truncation", "10", "--days", "0.5", "--tol", "1e-5",
        "--min-reps", "1", "--max-reps", "2", "--warmup", "0"]


@pytest.mark.parametrize("name", sorted(STACKS))
def test_both_layouts_across_two_nodes(cluster, name):
    launch, host_opt, bindir = STACKS[name]
    if not (bindir / "hpceval-pctm").is_file():
        pytest.fail(f"{bindir}/hpceval-pctm is not built: run 'make build build-mpich'")
    run = launch_benchmark(cluster, [*launch, host_opt, "node1:1,node2:1", "-n", "2",
                                     str(bindir / "hpceval-pctm"), *ARGS])
    check_exit(name, run)
    assert run.first("meta")["hosts"] == ["node1", "node2"]
    recs = [r for r in run.records if r.get("metric") == "sim_years_per_day"]
    assert [r["params"]["layout"] for r in recs] == ["sequential", "concurrent"]
    for r in recs:
        assert r["check"] == "ok" and r["coupler_max_rel_diff"] < 1e-12
        assert r["ocean_budget_error"] <= r["ocean_budget_bound"]
    assert (recs[1]["params"]["ocean_ranks"], recs[1]["params"]["atm_ranks"]) == (1, 1)
