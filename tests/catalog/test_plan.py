import pytest

from hpceval.catalog import BENCHMARKS, SUITES, PlanContext, plan_targets
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def test_quick_suite_plans_every_skeleton_benchmark():
    specs = plan_targets(["quick"], [], CTX)
    assert [s.benchmark for s in specs] == ["pingpong", "mem-latency", "mem-latency", "stream",
                                            "stream", "barotropic", "barotropic"]
    pp, mem, window, s1, s2, baro, traced = specs
    assert "window" in window.args
    # the proxy at 2 ranks; only its second, smaller launch is traced (for the report's charts)
    assert baro.nranks == traced.nranks == 2 and not baro.trace and traced.trace
    assert pp.nranks == 2 and pp.bind == "core"
    assert "--budget" in pp.args and pp.args[pp.args.index("--budget") + 1] == "0.2"
    # mem-latency reaches at least 4x the last-level cache and 256 MiB
    sizes = [int(x) for x in mem.args[mem.args.index("--sizes") + 1].split(",")]
    assert sizes[0] == 4096 and sizes[-1] >= max(256 << 20, 4 * CTX.llc_bytes)
    # STREAM: 1 thread and all cores, arrays >= 4x LLC, threads unbound by MPI, pinned by OpenMP
    assert [s.env["OMP_NUM_THREADS"] for s in (s1, s2)] == ["1", "2"]
    assert all(s.bind == "none" and s.env["OMP_PLACES"] == "cores" for s in (s1, s2))
    n = int(s1.args[s1.args.index("--n") + 1])
    assert 8 * n >= 4 * CTX.llc_bytes


def test_set_applies_to_every_benchmark_with_the_parameter_or_one():
    specs = plan_targets(["pingpong", "mem-latency"], ["budget=0.1", "pingpong.sizes=8,1K"], CTX)
    pp, mem, window = specs
    assert pp.args[pp.args.index("--sizes") + 1] == "8,1024"
    assert pp.expected_results == 4
    assert mem.args[mem.args.index("--budget") + 1] == "0.1"


@pytest.mark.parametrize("targets,sets,message", [
    (["nosuch"], [], "unknown suite or benchmark 'nosuch'"),
    (["pingpong"], ["sizes"], "expected NAME=VALUE"),
    (["pingpong"], ["colour=red"], "no parameter 'colour'"),
    (["pingpong"], ["stream.threads=2"], "no parameter 'threads' in stream"),
    (["pingpong"], ["mem-latency.stride=64"], "no parameter 'stride'"),
    (["pingpong"], ["pingpong.stride=64"], "pingpong has no parameter 'stride'"),
    (["stream"], ["threads=two"], "'two' is not a thread count"),
    (["mem-latency"], ["sizes=64G"], "needs 64.0 GiB but only"),
    (["stream"], ["n=2000000000"], "stream arrays needs"),
    (["mem-latency"], ["cpu=7"], "this machine has CPUs 0..1"),
])
def test_bad_plans_are_refused_before_launch(targets, sets, message):
    with pytest.raises(UsageError, match=message):
        plan_targets(targets, sets, CTX)


def test_pingpong_needs_two_ranks():
    with pytest.raises(UsageError, match="at least 2 ranks"):
        plan_targets(["pingpong"], [], PlanContext(2, 32 << 20, 1 << 30, nranks=1))


def test_registries_are_consistent():
    for suite in SUITES.values():
        for name, settings in suite.entries:
            bench = BENCHMARKS[name]
            for key in settings:
                assert bench.has_param(key), (suite.name, name, key)


def test_remeasure_labels_say_again_once():
    from hpceval.catalog.common import again_label
    first = again_label("pingpong np=2", "8 B ")
    assert first == "pingpong np=2 (8 B again)"
    assert again_label(first, "8 B ") == first            # a second round: the same label
    assert again_label(again_label("stream threads=1")) == "stream threads=1 (again)"


def test_what_the_build_lacks_is_left_out_before_the_budget_is_fitted():
    """A binary the build cannot run (PlanContext.unbuilt: the threaded memory benchmarks under
    SMPI, shmem-halo under MPICH) is left out before the fit, said once, and its share goes to
    the rest: the launches add up to the areas. Alone in a plan it is kept (the run refuses
    with the reason)."""
    from dataclasses import replace
    from hpceval.catalog.estimate import total_s
    lacks = {"stream": "planted", "mem-bandwidth": "planted too"}
    ctx = replace(CTX, nodes=4, ppn=2, unbuilt=lacks.get)
    specs = plan_targets(["memory", "comm"], [], ctx, budget_s=120)
    assert not {s.binary for s in specs} & set(lacks)
    assert {"stream left out: not in this build (planted)",
            "mem-bandwidth left out: not in this build (planted too)"} <= set(ctx.notes)
    assert sum(a["estimate_s"] for a in ctx.areas) == pytest.approx(total_s(specs), abs=0.5)
    assert total_s(specs) <= 120
    memory = next(a for a in ctx.areas if a["area"] == "memory")
    assert memory["launches"] == sum(BENCHMARKS[s.benchmark].area == "memory" for s in specs)
    alone = replace(CTX, unbuilt=lacks.get)
    assert {s.binary for s in plan_targets(["stream"], [], alone)} == {"stream"}
