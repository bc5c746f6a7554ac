"""The comm catalog (plans, bad input refused before launching) and the comm part of the report
from a real small run."""
import pytest

from helpers import FAST, CLI
from hpceval.catalog import BENCHMARKS, SUITES, PlanContext, plan_targets
from hpceval.errors import UsageError
from hpceval.report import FIGURES, TABLES, render_report

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def test_comm_suite_plans_every_benchmark():
    specs = plan_targets(["comm"], [], CTX)
    names = [s.benchmark for s in specs]
    # every communication benchmark, none from another area; the network map is the acceptance
    # suite's (one rank a node, every pair of nodes), not a curve of one node's ranks
    accept = {b for b, _ in SUITES["acceptance"].entries}
    assert set(names) == {n for n, b in BENCHMARKS.items()
                          if b.area == "communication" and n not in accept}
    assert "netmap" in accept
    assert {"pingpong", "loggp", "eager", "p2p", "collectives"} <= set(names)
    patterns = [s.args[s.args.index("--pattern") + 1] for s in specs if s.benchmark == "p2p"]
    assert patterns == ["0-1", "intra-pairs", "0-k", "ring", "cross-pairs"]
    assert sorted(s.nranks for s in specs if s.benchmark == "collectives") == [2, 4]
    # the cross-node patterns emulate two nodes on one machine
    cross = next(s for s in specs if s.label.startswith("p2p cross-pairs"))
    assert cross.args[cross.args.index("--ranks-per-node") + 1] == "2" and cross.nranks == 4
    assert "pingpong" in [b for b, _ in SUITES["quick"].entries]   # the headline stays


def test_distance_samples_its_destinations_at_scale():
    """Beyond sample-above ranks rank 0 measures a stated sample: its node's ranks, the first
    rank of the nodes 2^j away either way, and `sample` drawn with `seed` (the same each time)."""
    ctx = PlanContext(2, 32 << 20, 16 << 30, nranks=1024, nodes=512, ppn=2)
    [spec] = plan_targets(["distance"], ["sizes=8"], ctx)
    dests = [int(d) for d in spec.args[spec.args.index("--dests") + 1].split(",")]
    near = {1} | {2 * j for j in (1, 2, 4, 8, 16, 32, 64, 128, 256)} \
        | {2 * (512 - j) for j in (1, 2, 4, 8, 16, 32, 64, 128)}
    assert near <= set(dests) and len(dests) == len(near) + 64 and dests == sorted(set(dests))
    assert spec.expected_results == 2 * len(dests)
    assert any("rank 0 to" in n and "seed 1" in n for n in ctx.notes)
    assert plan_targets(["distance"], ["sizes=8"], ctx)[0].args == spec.args
    [every] = plan_targets(["distance"], ["sizes=8", "sample-above=0"], ctx)
    assert "--dests" not in every.args and every.expected_results == 2 * 1023
    [small] = plan_targets(["distance"], ["sizes=8"], PlanContext(2, 32 << 20, 16 << 30, nranks=64))
    assert "--dests" not in small.args


def test_cross_node_patterns_span_two_nodes_of_a_wide_allocation():
    """The comm suite's 4-rank p2p rungs on 64 nodes of 16: 0-k and cross-pairs failed with
    'needs ranks on at least 2 nodes' (all 4 on the first node); they are placed 2 a node and
    said, the patterns inside a node keep the allocation's placement."""
    ctx = PlanContext(2, 32 << 20, 16 << 30, nodes=64, ppn=16)
    specs = [s for s in plan_targets(["comm"], [], ctx) if s.benchmark == "p2p"]
    ppn = {s.label: s.ppn for s in specs}
    assert ppn["p2p 0-k np=4"] == ppn["p2p cross-pairs np=4"] == 2, ppn
    assert ppn["p2p intra-pairs np=4"] is None and ppn["p2p ring np=4"] is None, ppn
    assert "p2p 0-k np=4: 2 ranks a node, so that it spans two nodes" in ctx.notes
    # one machine: emulated nodes (ranks-per-node), no placement
    assert all(s.ppn is None for s in plan_targets(["comm"], [], CTX) if s.benchmark == "p2p")


def test_a_simulated_pair_runs_alone():
    """The comm suite's p2p 0-1 at the run's rank count: at 1,024 simulated ranks the idle
    ranks' start-up took 254 s of the suite (SimGrid 4.1) for a pair whose simulated times do
    not depend on them; simulated, it runs on its pair, and says so. A real run keeps the
    allocation's launch; nranks given is kept."""
    sim = PlanContext(2, 32 << 20, 16 << 30, nranks=1024, nodes=64, ppn=16, simulated=True,
                      host_memory_bytes=16 << 30)
    pairs = [s for s in plan_targets(["comm"], [], sim) if s.label.startswith("p2p 0-1")]
    assert [s.nranks for s in pairs] == [2]
    assert any("p2p 0-1: on its pair alone (2 of the 1024 simulated ranks)" in n
               for n in sim.notes)
    real = PlanContext(2, 32 << 20, 16 << 30, nranks=1024, nodes=64, ppn=16)
    assert [s.nranks for s in plan_targets(["comm"], [], real)
            if s.label.startswith("p2p 0-1")] == [1024]
    [asked] = plan_targets(["p2p"], ["patterns=0-1", "nranks=64"], sim)
    assert asked.nranks == 64


def test_simulated_points_take_three_samples_unless_asked():
    """A simulated point gives nearly the same time every sample: the plan asks three (ten on
    a real machine), and keeps what an entry or the user set."""
    sim = PlanContext(2, 32 << 20, 16 << 30, nranks=64, nodes=4, ppn=16, simulated=True,
                      host_memory_bytes=16 << 30)
    reps = lambda s: int(s.args[s.args.index("--min-reps") + 1])
    assert {reps(s) for s in plan_targets(["comm"], [], sim)} == {3}
    real = PlanContext(2, 32 << 20, 16 << 30, nranks=64, nodes=4, ppn=16)
    assert {reps(s) for s in plan_targets(["comm"], [], real)} == {10}
    [asked] = plan_targets(["halo"], ["min-reps=7"], sim)
    assert reps(asked) == 7


def test_simulated_collectives_fit_this_host():
    """Simulated, every rank's buffers are in this host's memory: at 256 ranks alltoall's 32 KiB
    a pair (8 GiB in all) is left out, and said; 4 KiB (1 GiB) is measured."""
    ctx = PlanContext(2, 32 << 20, 16 << 30, nranks=256, nodes=256, ppn=1,
                      host_memory_bytes=16 << 30)
    [spec] = plan_targets(["collectives"], ["sizes=4K,32K"], ctx)
    assert spec.args[spec.args.index("--sizes") + 1] == "4096"
    assert any("sizes above 4096 B" in n and "this host's memory" in n for n in ctx.notes)
    ctx.host_memory_bytes = 0                                  # a real machine: per node
    [real] = plan_targets(["collectives"], ["sizes=4K,32K"], ctx)
    assert real.args[real.args.index("--sizes") + 1] == "4096,32768"
    with pytest.raises(UsageError, match="do not fit this host's memory"):
        plan_targets(["collectives"], ["sizes=1M"], PlanContext(
            2, 32 << 20, 16 << 30, nranks=1024, nodes=1024, ppn=1, host_memory_bytes=8 << 30))


def test_pingpong_is_unchanged_for_quick():
    [pp] = plan_targets(["pingpong"], ["sizes=8,1K"], CTX)
    assert pp.binary == "pingpong" and pp.nranks == 2 and pp.expected_results == 4


@pytest.mark.parametrize("target,sets,np,message", [
    ("p2p", ["patterns=intra-pairs"], 3, "even number of ranks"),
    ("p2p", ["protocols=carrier-pigeon"], 2, "'carrier-pigeon' is not one of"),
    ("p2p", ["patterns=all"], 2, "'all' is not one of"),
    ("p2p", ["sizes=2G"], 2, "out of range"),
    ("p2p", ["sizes=64M"], 1024, "memory is available"),
    ("distance", ["full=1"], 100, "full matrix is limited to 64 ranks"),
    ("random2", [], 3, "even number of ranks"),
    ("halo", ["tile=4", "widths=8"], 2, "larger than the tile"),
    ("collectives", ["ops=scan"], 2, "'scan' is not one of"),
])
def test_bad_input_is_refused_before_launch(target, sets, np, message):
    with pytest.raises(UsageError, match=message):
        plan_targets([target], sets, PlanContext(2, 32 << 20, 16 << 30, nranks=np))


@pytest.fixture(scope="module")
def comm_run(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("comm") / "r.sqlite")
    p = cli("run", "p2p", "collectives", "hotspot", "distance", *FAST,
            "--set", "p2p.sizes=1,8,64,512,4K,32K,256K", "--set", "p2p.modes=pingpong,stream",
            "--set", "p2p.protocols=send,isend", "--set", "collectives.sizes=4,1K",
            "--set", "hotspot.sizes=1K", "--set", "distance.sizes=8", "--np", "2")
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    return run


def test_report_draws_the_comm_figures_and_models(comm_run):
    html = render_report([comm_run])
    for spec in FIGURES:
        # the patterns' figures need patterns (and swap mode) this run does not measure
        if spec.benchmark in ("p2p", "distance", "hotspot") and spec.make.__name__ not in (
                "p2p_patterns", "swap_patterns"):
            assert spec.title in html, spec.title
    assert "Collectives vs message size" in html
    assert "Fitted message-time models" in html
    table = next(t for t in TABLES if t.title.startswith("Fitted message-time"))
    rows = table.make(comm_run).rows
    series = [r[0] for r in rows if r[0]]
    assert series == ["p2p pingpong isend", "p2p pingpong send", "p2p stream isend",
                      "p2p stream send"]
