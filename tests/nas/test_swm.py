"""SWM (swm), ParkBench's spectral shallow water benchmark as a preset of psst: its plan (the
distributed FFT and Legendre transform, the medium problem where memory allows, else the small
one); the preset's launches verify against the serial model on 1, 2 and 4 ranks under Open MPI
and MPICH; a corrupted state fails; hostile settings are one line; `hpceval run swm` reports
under SWM's name, and two runs of it and NAS MG compare as the SP2 study's Fig. 7 bars."""
import re

import pytest

from hpceval.catalog import BENCHMARKS, PlanContext
from hpceval.catalog.bench_swm import swm_grid
from kernel_helpers import mpirun
from npb_checks import assert_setting_refused, launch_mpich

BIG = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=64 << 30)


def plan(ctx, np, **settings):
    ctx.nranks = np
    b = BENCHMARKS["swm"]
    return b.plan({k: b.param(k).parse(str(v)) for k, v in settings.items()}, ctx)


def test_grids_distribute_both_transforms_from_four_ranks():
    assert [swm_grid(n) for n in (1, 2, 4, 8, 16, 6)] == \
        [(1, 1), (2, 1), (2, 2), (4, 2), (4, 4), (3, 2)]


def test_the_medium_problem_where_memory_allows_else_the_small_one():
    [spec] = plan(PlanContext(**vars(BIG)), 4)
    args = dict(zip(spec.args[::2], spec.args[1::2]))
    assert (args["--truncation"], args["--levels"], args["--grids"]) == ("170", "32", "2x2")
    assert (args["--transposes"], args["--sums"], args["--mappings"]) == \
        ("distributed", "allreduce", "row")
    small = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=2 << 30)
    [spec] = plan(small, 2)
    assert spec.args[spec.args.index("--truncation") + 1] == "42"
    assert any("medium problem" in n and "does not fit" in n for n in small.notes)
    with pytest.raises(Exception, match="needs about"):   # asked for, it is refused
        plan(PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=2 << 30), 2,
             problem="medium")


def preset_args(np):
    [spec] = plan(PlanContext(**vars(BIG)), np, problem="small", days=0.02, **{
        "min-reps": 1, "max-reps": 1, "warmup": 0})
    return spec.args


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
@pytest.mark.parametrize("np", [1, 2, 4])
def test_preset_verifies_against_the_serial_model(mpi, np):
    args = preset_args(np)
    p, recs = mpirun("psst", np, *args) if mpi == "openmpi" else launch_mpich("psst", np, *args)
    assert p.returncode == 0, p.stderr
    res = {r["metric"]: r for r in recs if r["type"] == "result"}
    assert set(res) == {"run_time", "mflops", "sim_days_per_day"}
    for r in res.values():
        assert (r["params"]["P"], r["params"]["Q"]) == swm_grid(np)
        assert r["params"]["transpose"] == "distributed" and r["params"]["sum"] == "allreduce"
        assert r["max_rel_diff_vs_serial"] < 1e-12 and r["check"] == "ok"
    # MFlop/s: the serial model's operation count over the time
    flops = res["run_time"]["flops_per_step"] * res["run_time"]["passes"]
    assert res["mflops"]["stats"]["median"] == pytest.approx(
        flops / res["run_time"]["stats"]["median"] / 1e6, rel=0.05)


@pytest.mark.parametrize("np", [2])
def test_a_corrupted_state_fails(np):
    p, recs = mpirun("psst", np, *preset_args(np), "--inject", "corrupt")
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "differs from the serial model" in err["message"] or "height error" in err["message"]


@pytest.mark.parametrize("setting,msg", [
    ("problem=huge", "--set problem: 'huge' is not one of auto, medium, small"),
    ("days=-1", "--set days: -1 is out of range"),
    ("ranks=0", "rank"),
])
def test_hostile_settings_are_refused_when_planned(setting, msg):
    from hpceval.errors import UsageError
    name, value = setting.split("=")
    with pytest.raises(UsageError, match=re.escape(msg)):
        plan(PlanContext(**vars(BIG)), 2, **{name: value})


def test_a_hostile_setting_is_one_line(cli):
    assert_setting_refused(cli, "swm", "swm.ranks=abc", "rank")


def test_run_reports_as_swm_and_two_runs_compare_as_fig7(cli):
    from hpceval.analysis.card import machine_card
    once = ["--set", "min-reps=1", "--set", "max-reps=1", "--set", "warmup=0", "--no-remeasure",
            "--llc", "reported"]
    for _ in range(2):   # old and new
        p = cli("run", "swm", "npb-mg", "--np", "2", "--set", "swm.problem=small",
                "--set", "swm.days=0.02", "--set", "npb-mg.class=S", *once, timeout=120)
        assert p.returncode == 0, p.stderr
    runs = cli.export("1", "2")
    for run in runs:
        swm = [r for r in run["records"] if r["benchmark"] == "swm"]
        assert {r["metric"] for r in swm} == {"run_time", "mflops", "sim_days_per_day"}
    card = {r["quantity"]: r for r in machine_card(runs[0])}
    assert card["SWM (ParkBench spectral shallow water), MFlop/s"]["measured"]
    assert cli("compare", "1", "2").returncode == 0
    from hpceval.report.views import figure_sections   # what compare --figures draws
    [fig7] = [f for sec in figure_sections(runs, "compare", compare=True)
              for f in sec["figures"] if f["stem"] == "compare-fig7"]
    [left, right] = fig7["figure"].axes   # time and MFlop/s: MG and SWM, a bar per run each
    for ax in (left, right):
        assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["MG", "SWM"]
        assert len(ax.patches) == 4 and all(b.get_height() > 0 for b in ax.patches)
