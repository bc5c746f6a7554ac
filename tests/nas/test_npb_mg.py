"""NAS MG (npb-mg): class S verifies against NPB 3.4's residual norm on 1, 2 and 4 ranks (the same
20 charges whatever the decomposition), class W on 1 and 2; records carry the verification;
planned, measured, carded and drawn through `hpceval run` (bad usage and a corrupted residual:
test_npb_failures.py)."""
import pytest

from helpers import FAST
from kernel_helpers import mpirun
from npb_checks import assert_plan_refused, assert_run_carded_and_drawn, time_record

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]
# NPB 3.4 MG/mg.f, verification block
REFERENCE = {"S": 0.5307707005734e-04, "W": 0.6467329375339e-05}
SIZE = {"S": (32, 4), "W": (128, 4)}
PHASES = {"resid": "compute", "smooth": "compute", "restrict": "compute", "interp": "compute",
          "norm": "compute", "halo": "comm", "gather": "comm", "reduce": "comm"}


def launch(np, *args, timeout=60):
    return mpirun("npb-mg", np, *args, timeout=timeout)


def by_metric(recs):
    return {r["metric"]: r for r in recs if r["type"] == "result"}


@pytest.mark.parametrize("cls,np", [("S", 0), ("S", 2), ("S", 4), ("W", 0), ("W", 2)])
def test_verifies_against_npb(cls, np):
    p, recs = launch(np, "--class", cls, *TINY)
    assert p.returncode == 0, p.stderr
    res = by_metric(recs)
    assert set(res) == {"mops", "run_time"}
    n, nit = SIZE[cls]
    for r in res.values():
        assert r["params"] == {"class": cls, "n": n, "nit": nit, "ranks": max(np, 1)}
        assert r["verify_value"] == REFERENCE[cls] and r["epsilon"] == 1e-8
        assert r["verified"] is True and r["check"] == "ok"
        assert "mg.f" in r["verify_source"]
        # NPB asks 1e-8; the same charges and operators on any decomposition give round-off
        assert r["rel_err"] == pytest.approx(abs(r["rnm2"] / REFERENCE[cls] - 1), abs=1e-15)
        assert r["rel_err"] < 1e-11
    # one sample: Mop/s is NPB's count over that sample's time
    t = res["run_time"]["stats"]["median"]
    assert res["mops"]["stats"]["median"] == pytest.approx(58 * nit * n ** 3 / t / 1e6, rel=1e-5)


def test_time_record_has_every_ranks_phases():
    r = time_record("npb-mg", 4, PHASES)
    # 32^3 on 4 ranks: levels 32, 16, 8 distributed (two planes a rank at least), 4 and 2 not
    assert r["levels"] == 5 and r["replicated_levels"] == 2
    assert sum(r["phases"]["gather"]["per_rank"]) > 0


def test_run_card_headline_and_figure(cli, tmp_path):
    assert_run_carded_and_drawn(cli, tmp_path, "npb-mg", "NAS MG (NPB)", FAST)


@pytest.mark.parametrize("ranks,msg", [
    ("3", "npb-mg: 3 ranks: NPB runs on a power of two ranks (1, 2, 4, 8, ...)"),
    ("32", "npb-mg: class S (32^3) is too small for 32 ranks: at most 16"),
])
def test_plan_refusals(cli, ranks, msg):
    assert_plan_refused(cli, "npb-mg", ranks, msg, FAST)
