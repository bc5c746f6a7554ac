"""NPB CG: NPB's zeta for classes S and W on 1, 2 and 4 ranks (NPB's verification, relative
1e-10); the records (verification values, NPB's operation count and Mop/s, phases); bad input
(exit 2, one line) and a damaged matrix (exit 1); one run through `hpceval run`."""

import pytest

from helpers import FAST, one_line_error
from kernel_helpers import mpirun

ONE = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
THREE = ["--min-reps", "3", "--max-reps", "3", "--warmup", "0"]
# NPB 3.4 CG/cg.f: (na, nonzer, niter, shift, zeta_verify_value) per class
CLASSES = {"S": (1400, 7, 15, 10.0, 8.5971775078648),
           "W": (7000, 8, 15, 12.0, 10.362595087124)}
PHASES = {"matvec": "compute", "vector": "compute", "allgather": "comm", "allreduce": "comm"}


def launch(np_, *args, timeout=60):
    return mpirun("npb-cg", np_, *args, timeout=timeout)


def record(recs, metric):
    [r] = [r for r in recs if r["type"] == "result" and r["metric"] == metric]
    return r


def npb_ops(na, nonzer, niter):
    """The mflops expression of NPB 3.4 CG/cg.f, times 1e6."""
    return 2 * niter * na * (3 + nonzer * (nonzer + 1) + 25 * (5 + nonzer * (nonzer + 1)) + 3)


@pytest.mark.parametrize("cls,np_", [("S", 1), ("S", 2), ("S", 4), ("W", 2)])
def test_zeta_verifies(cls, np_):
    na, nonzer, niter, shift, zeta = CLASSES[cls]
    p, recs = launch(np_, "--class", cls, *ONE)
    assert p.returncode == 0, p.stderr
    r = record(recs, "mops")
    assert r["params"] == {"class": cls, "na": na, "nonzer": nonzer, "niter": niter,
                           "shift": shift, "ranks": np_}
    assert r["zeta_reference"] == zeta and r["zeta_epsilon"] == 1e-10
    assert abs(r["zeta"] - zeta) / zeta <= 1e-10 and r["verified"] is True
    assert r["zeta_rel_error"] == pytest.approx(abs(r["zeta"] - zeta) / zeta, rel=1e-5, abs=1e-18)
    assert "cg.f" in r["zeta_source"]
    assert 0 <= r["rnorm"] < 1e-10     # 25 CG steps reach rounding level on these matrices


def test_the_matrix_does_not_depend_on_the_ranks():
    """Every rank draws the whole stream and keeps its rows: as many elements on 1 rank as on 4."""
    nnz = {record(launch(n, *ONE)[1], "mops")["nnz"] for n in (0, 4)}
    assert len(nnz) == 1 and nnz.pop() > 1400 * 8


def test_records_count_as_npb_does():
    na, nonzer, niter, _, _ = CLASSES["S"]
    p, recs = launch(2, *THREE)
    assert p.returncode == 0, p.stderr
    mops, run, it = (record(recs, m) for m in ("mops", "run_time", "iteration_time"))
    assert (mops["unit"], run["unit"], it["unit"]) == ("Mop/s", "s", "ms")
    assert (mops["better"], run["better"]) == ("higher", "lower")
    assert mops["flops_per_run"] == npb_ops(na, nonzer, niter) == 66654000
    # three samples: the medians are of the same sample
    assert mops["stats"]["median"] == pytest.approx(
        npb_ops(na, nonzer, niter) / run["stats"]["median"] / 1e6, rel=1e-4)
    assert it["stats"]["median"] == pytest.approx(run["stats"]["median"] / niter * 1e3, rel=1e-4)
    assert {k: v["kind"] for k, v in it["phases"].items()} == PHASES
    assert all(len(v["per_rank"]) == 2 for v in it["phases"].values())
    assert it["rows_per_rank"] == [700, 700] and mops["stats"]["n"] == 3
    # the phases cover the timed loop: their sum is each rank's wall time
    for k in range(2):
        total = sum(v["per_rank"][k] for v in it["phases"].values())
        assert total == pytest.approx(it["wall_per_rank"][k], rel=0.02)


@pytest.mark.parametrize("np_,args,msg", [
    (0, ["--class", "C"], "option --class: value 'C' is not one of S|W|A|B"),
    (0, ["--class", "s"], "is not one of S|W|A|B"),
    (3, [], "npb-cg: 3 ranks: NPB CG runs on a power of two ranks"),
])
def test_bad_input_is_one_line_exit_2(np_, args, msg):
    p, recs = launch(np_, *args, *ONE)
    assert p.returncode == 2
    ours = [l for l in p.stderr.splitlines() if l.startswith("hpceval-npb-cg:")]
    assert len(ours) == 1 and msg in ours[0], p.stderr
    assert not [r for r in recs if r["type"] == "result"]


@pytest.mark.parametrize("np_", [0, 2])
def test_a_damaged_matrix_fails_verification(np_):
    p, recs = launch(np_, "--inject", "corrupt", *ONE)
    assert p.returncode == 1, p.stderr
    [err] = [r for r in recs if r["type"] == "error"]
    assert "class S verification failed" in err["message"] and err["exit_status"] == 1
    assert not [r for r in recs if r["type"] == "result"]


def test_through_the_cli(cli, tmp_path):
    from hpceval.catalog.bench_npb_cg import flops
    assert flops("S") == npb_ops(*CLASSES["S"][:3])
    p = cli("run", "npb-cg", "--np", "2", "--set", "npb-cg.class=S", *FAST, timeout=120)
    assert p.returncode == 0, p.stderr
    (run,) = cli.export("latest")
    assert run["status"] == "ok" and [l["nranks"] for l in run["launches"]] == [2]
    [r] = [r for r in run["records"] if r.get("metric") == "mops"]
    assert r["extra"]["verified"] is True and r["params"]["class"] == "S"
    out = tmp_path / "r.html"
    assert cli("report", "latest", "-o", str(out)).returncode == 0
    assert "NAS CG (NPB): Mop/s vs ranks" in out.read_text()
    bad = cli("run", "npb-cg", "--np", "3", *FAST)
    assert bad.returncode == 2 and "power of two" in one_line_error(bad.stderr), bad.stderr
