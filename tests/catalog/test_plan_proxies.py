"""Planning the barotropic proxy: one launch per rank count and scaling, the trace flag, the `pop`
suite, and settings refused before anything is launched."""
import pytest

from hpceval.catalog import BENCHMARKS, SUITES, PlanContext, plan_targets
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def arg(spec, name):
    return spec.args[spec.args.index(name) + 1]


def test_default_is_one_strong_launch_at_np_or_two():
    [s] = plan_targets(["barotropic"], [], CTX)
    assert (s.benchmark, s.binary, s.nranks, s.bind, s.trace) == ("barotropic", "barotropic", 2,
                                                                   "core", False)
    assert s.label == "barotropic np=2 96x64 strong"
    assert arg(s, "--grids") == "96x64" and arg(s, "--pgrids") == "1x2,2x1"
    assert "--weak-block" not in s.args
    # 2 process grids x 2 mappings x 3 halos x (allreduce, tree 2, tree 4, onesided), 2 records
    assert s.expected_results == 2 * 2 * 2 * 3 * 4
    [s4] = plan_targets(["barotropic"], [], PlanContext(2, 32 << 20, 16 << 30, nranks=4))
    assert s4.nranks == 4 and arg(s4, "--pgrids") == "1x4,2x2,4x1"


def test_rank_sweep_strong_and_weak():
    specs = plan_targets(["barotropic"], ["ranks=1,2,4", "scaling=strong,weak",
                                          "grids=320x384", "halos=pack", "sums=allreduce",
                                          "mappings=row"], CTX)
    assert [(s.nranks, s.label) for s in specs] == [
        (1, "barotropic np=1 320x384 strong"), (1, "barotropic np=1 48x32/rank weak"),
        (2, "barotropic np=2 320x384 strong"), (2, "barotropic np=2 48x32/rank weak"),
        (4, "barotropic np=4 320x384 strong"), (4, "barotropic np=4 48x32/rank weak")]
    weak = [s for s in specs if "weak" in s.label]
    assert all(arg(s, "--weak-block") == "48x32" and "--grids" not in s.args for s in weak)
    assert [arg(s, "--pgrids") for s in weak] == ["1x1", "1x2,2x1", "1x4,2x2,4x1"]
    assert [s.expected_results for s in weak] == [2, 4, 6]
    # a bigger problem gets a longer time limit
    strong = [s for s in specs if "strong" in s.label]
    assert strong[0].timeout_s > weak[0].timeout_s


def test_a_launch_without_the_default_land_says_so():
    """The study's two barotropic ladders (continents and none) are two problems: their labels
    differ, so their costs are learned apart and the log tells them apart."""
    specs = plan_targets(["barotropic"], ["ranks=1", "scaling=strong,weak", "grids=320x384",
                                          "land=none"], CTX)
    assert [s.label for s in specs] == ["barotropic np=1 320x384 strong land=none",
                                        "barotropic np=1 48x32/rank weak land=none"]
    [both] = plan_targets(["barotropic"], ["ranks=1", "land=none,continents"], CTX)
    assert both.label == "barotropic np=1 96x64 strong land=none,continents"
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=2, ppn=2)
    study = [s.label for s in plan_targets(["study"], [], ctx)
             if s.benchmark == "barotropic" and s.nranks == 1]
    assert len(study) == len(set(study)) >= 2, study


def test_weak_block_max_and_listed_pgrids():
    specs = plan_targets(["barotropic"], ["ranks=2,max", "scaling=weak", "weak-block=80x96",
                                          "pgrids=2x1,1x1"], CTX)
    # 'max' is the 2 cores: one launch; each rank count keeps the listed grids that fit it
    [s] = specs
    assert s.nranks == 2 and arg(s, "--weak-block") == "80x96" and arg(s, "--pgrids") == "2x1"


def test_trace_flag_and_arguments():
    [s] = plan_targets(["barotropic"], ["trace=yes", "ranks=4", "pgrids=2x2", "sums=tree",
                                        "branches=2,8", "tol=1e-8", "dt=3600",
                                        "land=none,continents", "inject=corrupt"], CTX)
    assert s.trace is True and s.nranks == 4 and s.label.endswith(" traced")
    assert arg(s, "--sums") == "tree" and arg(s, "--branches") == "2,8"
    assert float(arg(s, "--tol")) == 1e-8 and float(arg(s, "--dt")) == 3600
    assert arg(s, "--land") == "none,continents" and arg(s, "--inject") == "corrupt"
    # 1 grid x 2 lands x 2 mappings x 3 halos x 2 branches, 2 records
    assert s.expected_results == 2 * 2 * 3 * 2 * 2


def test_pop_suite():
    specs = plan_targets(["pop"], [], CTX)
    whole = [s for s in specs if s.benchmark == "pop-step"]
    assert [(s.nranks, arg(s, "--clinic-halos")) for s in whole] == [
        (n, "levels,aggregate") for n in (1, 2, 4)]
    specs = [s for s in specs if s.benchmark == "barotropic"]
    assert {s.nranks for s in specs} == {1, 2, 4}
    traced = [s for s in specs if s.trace]
    assert len(traced) == 1 and traced[0].nranks == 4
    assert any(arg(s, "--grids") == "320x384" and arg(s, "--land") == "continents"
               and s.nranks in (2, 4) and arg(s, "--halos") == "datatype,pack,put"
               for s in specs if "--grids" in s.args)
    assert {s.nranks for s in specs if "weak" in s.label} == {1, 2, 4}
    # what `predict barotropic` reads (its model has no land): one rank, and rungs to compare
    assert {s.nranks for s in specs if arg(s, "--land") == "none"} == {1, 2, 4}
    for name, settings in SUITES["pop"].entries:
        for key in settings:
            assert BENCHMARKS[name].has_param(key), key


@pytest.mark.parametrize("sets,message", [
    (["grids=96by64"], "--set grids: '96by64' is not NXxNY"),
    (["grids=2x64"], "grid 2x64: too small"),
    (["grids=30000x30000"], "grid 30000x30000: too big"),
    (["halos=nope"], "--set halos: 'nope' is not one of datatype, pack, put, shmem, caf"),
    (["sums=ring"], "--set sums: 'ring' is not one of allreduce, tree, onesided"),
    (["land=ice"], "--set land: 'ice'"),
    (["mappings=diag"], "--set mappings: 'diag'"),
    (["branches=1"], "--set branches: 1 is out of range"),
    (["branches=two"], "--set branches: 'two' is not a branching factor"),
    (["scaling=both"], "--set scaling: 'both'"),
    (["ranks=0"], "--set ranks: 0 is out of range"),
    (["ranks=two"], "--set ranks: 'two' is not a rank count"),
    (["pgrids=3x1"], "--set pgrids: none of 3x1 fits 2 ranks"),
    (["grids=4x8", "ranks=8", "pgrids=8x1"], "8x1 process grid leaves blocks smaller than one"),
    (["weak-block=1x1", "scaling=weak", "ranks=1"], "weak-block 1x1 makes a grid 1x1: too small"),
    (["weak-block=48x32"], "give scaling=weak"),
    (["weak-block=48", "scaling=weak"], "--set weak-block: '48' is not BXxBY"),
    (["trace=maybe"], "--set trace: 'maybe' is not one of yes, no"),
    (["tol=1"], "--set tol: 1 is out of range"),
    (["grids=20000x10000"], "needs"),
])
def test_bad_settings_are_refused(sets, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        plan_targets(["barotropic"], sets, CTX)


def test_repeated_list_elements_are_dropped():
    # the binary refuses repeats (a point measured twice); the planner passes each once
    [s] = plan_targets(["barotropic"], ["grids=96x64,96X64,32x24", "branches=2,02,4",
                                        "pgrids=2x1,2x1", "halos=pack,pack"], CTX)
    assert arg(s, "--grids") == "96x64,32x24" and arg(s, "--branches") == "2,4"
    assert arg(s, "--pgrids") == "2x1" and arg(s, "--halos") == "pack"


def test_the_study_plans_what_predict_reads():
    from hpceval.catalog.suites import study_suite
    entries = [dict(e) for b, e in study_suite().entries if b == "barotropic"]
    assert any(e.get("land") == "none" and e.get("ranks") == "ladder" for e in entries), entries
