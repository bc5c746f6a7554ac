"""Rank ladders from the allocation (hpceval/catalog/ladder.py) and their expansion in the plan:
every rung planned, a rung the benchmark refuses left out and said."""
import math

import pytest

from hpceval.catalog import BENCHMARKS, PlanContext, plan_targets
from hpceval.catalog import ladder
from hpceval.errors import UsageError


def test_rungs_of_a_node_and_of_nodes():
    assert ladder.expand("node", 100, 1) == [1, 2, 4, 8, 16, 32, 64, 100]
    assert ladder.expand("nodes", 100, 100) == [100, 200, 400, 800, 1600, 3200, 6400, 10000]
    full = ladder.expand("ladder", 100, 100)
    assert full[:8] == [1, 2, 4, 8, 16, 32, 64, 100] and full[-1] == 10000 and len(full) == 15
    assert ladder.expand("ladder", 2, 1) == [1, 2]
    assert ladder.expand("cross", 100, 100) == [200] and ladder.expand("cross", 2, 1) == [4]
    assert ladder.expand("ladder>=64", 100, 2) == [64, 100, 200]
    assert ladder.expand("ladder>=16<=64", 100, 2) == [16, 32, 64]
    assert ladder.expand("node>=2,cross", 4, 2) == [2, 4, 8]
    assert ladder.expand("1,2", 4, 2) is None           # plain counts: the planner reads them
    with pytest.raises(UsageError, match="not a rank count"):
        ladder.expand("ladder,many", 4, 2)


def test_thinning_keeps_the_ends_a_node_and_two_nodes():
    full = ladder.expand("ladder", 100, 100)
    thin = ladder.expand("ladder", 100, 100, level=2)
    assert thin[0] == 1 and thin[-1] == 10000 and {100, 200} <= set(thin)
    assert len(thin) < len(full) and set(thin) <= set(full)


def ctx(nodes=1, ppn=None, cores=2):
    return PlanContext(cores=cores, llc_bytes=32 << 20, mem_available_bytes=16 << 30,
                       nranks=nodes * ppn if ppn else None, nodes=nodes, ppn=ppn)


def test_a_ladder_plans_every_rung_and_notes_what_it_leaves_out():
    c = ctx(nodes=4, ppn=6)
    specs = plan_targets(["npb-cg"], ["class=S", "ranks=ladder"], c)
    # NPB: powers of two only; across nodes 4 a node of the 6 (12 and 24 ranks would break it)
    assert [(s.nranks, s.ppn) for s in specs] == [(1, None), (2, None), (4, None), (8, 4),
                                                  (16, 4)]
    assert any("at 6 ranks left out" in n and "power of two" in n for n in c.notes)
    assert any("8 ranks as 2 nodes x 4, 16 ranks as 4 nodes x 4" in n for n in c.notes)


def test_a_thinned_ladder_keeps_the_top_rung_the_benchmark_takes():
    # class S on 6 nodes x 100: NPB takes powers of two of the ladder's 1 .. 600
    taken = {}
    for level in (0, 2):
        c = ctx(nodes=6, ppn=100)
        c.thin = level
        taken[level] = sorted(s.nranks for s in plan_targets(["npb-cg"], ["class=S", "ranks=ladder"], c))
    assert taken[0] == [1, 2, 4, 8, 16, 32, 64, 128, 256]      # 2 and 4 nodes x 64
    # every 4th of the rungs it takes, its ends, its top in one node and first across kept
    # (thinning the whole ladder lost 64)
    assert taken[2] == [1, 16, 64, 128, 256]


def test_collectives_leave_out_sizes_that_do_not_fit_a_node():
    c = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=1 << 30, nranks=None,
                    nodes=64, ppn=16)
    specs = plan_targets(["collectives"], ["nranks=full", "sizes=8,1M"], c)
    [spec] = specs
    assert spec.nranks == 1024 and spec.args[spec.args.index("--sizes") + 1] == "8"
    assert any("sizes above 8 B per rank left out" in n for n in c.notes)


def test_collectives_without_a_gathering_op_keep_sizes_of_one_block():
    """bcast and allreduce hold one block of the largest size a rank, not one of every rank:
    1 MiB fits a node that 1,024 blocks of it do not (the top rung's at_scale ops)."""
    c = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=1 << 30, nranks=None,
                    nodes=64, ppn=16)
    [spec] = plan_targets(["collectives"], ["nranks=full", "sizes=8,1M",
                                            "ops=barrier,bcast,allreduce"], c)
    assert spec.args[spec.args.index("--sizes") + 1] == "8,1048576"
    assert not any("left out" in n for n in c.notes)
    assert BENCHMARKS["collectives"].memory(spec, {}) < 16 << 20     # 4 x 1 MiB and the harness


def test_nothing_left_is_refused_with_the_reason():
    with pytest.raises(UsageError, match="nothing to run.*power of two"):
        plan_targets(["npb-cg"], ["class=S", "ranks=full"], ctx(nodes=3, ppn=3))


def test_square_process_grids():
    from hpceval.catalog.common import process_grids
    assert process_grids("square", 10000, "pgrids") == [(100, 100), (80, 125)]
    assert process_grids("square", 12, "pgrids") == [(3, 4), (4, 3)]
    assert process_grids("square", 12, "g", fits=lambda p, q: q <= 3) == [(4, 3), (6, 2)]
    with pytest.raises(UsageError, match="no process grid"):
        process_grids("square", 7, "g", fits=lambda p, q: p > 7)


@pytest.mark.parametrize("k, n, rule", [(16, 64, None), (100, 16, ladder.RankRule(
    lambda r: not r & (r - 1), "powers of two")), (100, 8, ladder.RankRule(
        lambda r: math.isqrt(r) ** 2 == r, "squares"))])
def test_one_rung_of_a_ladder_alone(k, n, rule):
    """A budget's top rung, planned alone: `only` gives every rung of the ladder back as it
    was placed, rank rules' fewer ranks a node included."""
    rungs = ladder.expand_rungs("ladder", k, n, rule=rule)
    for rung in rungs:
        assert rung in ladder.expand_rungs(ladder.only(rung, k), k, n, rule=rule), rung
