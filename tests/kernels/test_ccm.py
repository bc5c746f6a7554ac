"""The CCM-like grid-point side (csrc/kernels/ccm.c) on 1, 2 and 4 ranks, both balances, Open
MPI and MPICH: every decomposition's tracer and temperature match one rank's (so the swap
changes no answer), each level's tracer mass is conserved, the swap evens the daylight columns
out, records whose phases add up; a corrupted tracer and bad options refused."""

import pytest

from kernel_helpers import (assert_check_fails, assert_phases_within_loop, assert_usage_error,
                            mpich_run, mpirun)

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
SMALL = ["--nlon", "32", "--nlat", "16", "--levels", "4", "--steps", "3"]
PHASES = {"physics": "compute", "swap_copy": "copy", "swap": "comm", "halo_copy": "copy",
          "halo": "comm", "advect": "compute", "fixer": "comm"}


def launch(np, *args, timeout=60):
    return mpirun("ccm", np, *args, timeout=timeout)


def mpich(np, *args, timeout=60):
    return mpich_run("ccm", np, *args, timeout=timeout)


def results(recs, metric):
    return [r for r in recs if r["type"] == "result" and r["metric"] == metric]


# The binary checks every point against a one-rank run of the same steps and the mass of every
# level against its start, and fails loudly (a usage or check error) otherwise: ok means matched
@pytest.mark.parametrize("run", [launch, mpich], ids=["openmpi", "mpich"])
@pytest.mark.parametrize("np,npe,balances", [(1, "1x1", "none"), (2, "1x2", "none,swap"),
                                             (2, "2x1", "none"), (4, "2x2", "none,swap"),
                                             (4, "1x4", "swap")])
def test_every_decomposition_matches_one_rank(run, np, npe, balances):
    p, recs = run(np, *SMALL, "--npe", npe, "--balances", balances, *TINY)
    assert p.returncode == 0, p.stderr
    got = [(r["params"]["balance"], r["params"]["P"], r["params"]["Q"])
           for r in results(recs, "step_time")]
    P, Q = map(int, npe.split("x"))
    assert got == [(b, P, Q) for b in balances.split(",")]


def test_the_swap_evens_the_daylight_columns_out():
    """1 x 2 ranks, the sun over the first block: without the swap rank 0 computes the daylight
    columns and rank 1 almost none; with it, half each (the work, not its noisy time)."""
    p, recs = launch(2, *SMALL, "--npe", "1x2", *TINY)
    assert p.returncode == 0, p.stderr
    day = {r["params"]["balance"]: r["day_columns_per_rank"]
           for r in results(recs, "physics_imbalance")}
    none, swap = day["none"], day["swap"]
    assert sum(none) == pytest.approx(sum(swap), rel=1e-5) and sum(none) > 0
    assert min(none) <= 0.25 * max(none)
    assert abs(swap[0] - swap[1]) <= 0.1 * max(swap)


def test_records_and_phases():
    p, recs = launch(2, *SMALL, "--npe", "1x2", "--min-reps", "3", "--max-reps", "3",
                     "--warmup", "1")
    assert p.returncode == 0, p.stderr
    st, imb = results(recs, "step_time"), results(recs, "physics_imbalance")
    assert [r["params"]["balance"] for r in st] == ["none", "swap"]
    assert st[0]["params"] == {"nlon": 32, "nlat": 16, "levels": 4, "P": 1, "Q": 2,
                               "balance": "none"}
    assert (st[0]["unit"], imb[0]["unit"]) == ("us", "%")
    assert st[0]["stats"]["n"] == imb[0]["stats"]["n"] == 3
    # the halo of a 32 x 16 grid: the longest trajectory (under a cell) plus the stencil's 2
    assert (st[0]["halo_x"], st[0]["halo_y"]) == (3, 3)
    for r in st:
        for name, kind in PHASES.items():
            assert r["phases"][name]["kind"] == kind
        assert_phases_within_loop(r)
    # no swap, no swap time
    assert st[0]["phases"]["swap"]["per_rank"] == [0, 0]
    assert min(st[1]["phases"]["swap"]["per_rank"]) > 0


@pytest.mark.parametrize("run", [launch, mpich], ids=["openmpi", "mpich"])
def test_a_corrupted_tracer_fails(run):
    # two points of a latitude, one up and one down: the mass holds, the field check catches it
    p, recs = run(2, *SMALL, "--npe", "1x2", "--balances", "swap", "--inject", "corrupt", *TINY)
    assert_check_fails(p, recs, "ccm swap on 1x2: the tracer against one rank's")


@pytest.mark.parametrize("np,args,msg", [
    (2, ["--npe", "2x1", "--balances", "swap"], "--balances swap needs Q even"),
    (4, ["--nlon", "30", "--npe", "1x4"], "Q must divide the longitudes"),
    (8, ["--nlon", "16", "--npe", "1x8"], "narrower than the departure points' halo"),
    (2, ["--npe", "3x3"], "option --npe: 3x3 is 9 ranks"),
])
def test_bad_options(np, args, msg):
    p, _ = launch(np, "--nlat", "16", "--levels", "4", *args, *TINY)
    assert_usage_error(p, msg, alone=False)
