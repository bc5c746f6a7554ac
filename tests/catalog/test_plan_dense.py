"""The dense solve's planner (hpceval/catalog/bench_dense.py): n from the memory of the nodes a
launch spans (the largest that fits the stated share, and its halves, multiples of NB), the
process grids per rank count, the study's ladder, one thread per rank, and refusals."""
from __future__ import annotations

import math

import pytest

from hpceval.catalog import BENCHMARKS, PlanContext
from hpceval.catalog.bench_dense import flops, largest_order
from hpceval.catalog.common import spec_arg
from hpceval.catalog.plan import plan_rungs
from hpceval.errors import UsageError

DENSE = BENCHMARKS["dense"]
GIB = 1 << 30


def ctx(**kw) -> PlanContext:
    return PlanContext(**{"cores": 2, "llc_bytes": 32 << 20, "mem_available_bytes": 16 * GIB,
                          **kw})


def orders(spec):
    return [int(x) for x in spec_arg(spec, "--n").split(",")]


def test_n_is_the_largest_that_fits_the_share_and_its_halves():
    [spec] = DENSE.plan({"ranks": "2"}, ctx())
    # 1% of 16 GiB of complex elements: sqrt(0.01 * 16 GiB / 16 B) = 3276.8 -> 3264 (NB 64)
    assert orders(spec) == [768, 1600, 3264]
    assert all(n % 64 == 0 for n in orders(spec))
    [real] = DENSE.plan({"ranks": "2", "kind": "real", "memory": 0.04}, ctx())
    top = int(math.sqrt(0.04 * 16 * GIB / 8))
    assert orders(real)[-1] == top - top % 64
    # the matrix the largest takes is within the share, and one more block row would not be
    assert 16 * 3264 ** 2 <= 0.01 * 16 * GIB < 16 * (3264 + 64) ** 2


def test_n_grows_with_the_nodes_not_with_the_ranks_of_one_node():
    one = largest_order("complex", 0.01, 1, 64, ctx(ppn=2))
    assert largest_order("complex", 0.01, 2, 64, ctx(ppn=2)) == one
    four_nodes = largest_order("complex", 0.01, 8, 64, ctx(ppn=2, nodes=4))
    assert four_nodes == pytest.approx(2 * one, abs=64)


def test_grids_nb_kinds_and_one_thread_per_rank():
    specs = DENSE.plan({"ranks": "1,4", "kind": "all", "nb": "32,64", "n": "512"}, ctx())
    assert [(s.nranks, spec_arg(s, "--kinds")) for s in specs] == \
        [(1, "complex"), (1, "real"), (4, "complex"), (4, "real")]
    assert spec_arg(specs[2], "--grids") == "1x4,2x2,4x1"
    assert spec_arg(specs[2], "--nb") == "32,64"
    assert all(s.env["OPENBLAS_NUM_THREADS"] == "1" for s in specs)
    # 4 metrics for each order x NB x grid
    assert specs[2].expected_results == 4 * 1 * 2 * 3
    [sq] = DENSE.plan({"ranks": "16", "n": "4096", "grids": "square"}, ctx(cores=16))
    assert spec_arg(sq, "--grids") == "4x4,2x8"


def test_the_study_draws_a_ladder_with_square_grids():
    from hpceval.catalog.registry import STUDY
    [(name, settings)] = [e for e in STUDY if e[0] == "dense"]
    c = ctx(ppn=4, nodes=4, cores=4)
    specs = plan_rungs(DENSE, {k: DENSE.param(k).parse(v) for k, v in settings.items()}, c)
    assert [s.nranks for s in specs] == [1, 2, 4, 8, 16]
    # one node's rungs share its memory: the same n; across nodes it grows
    tops = [orders(s)[-1] for s in specs]
    assert tops[0] == tops[1] == tops[2] < tops[3] < tops[4]
    assert spec_arg(specs[-1], "--grids") == "4x4,2x8"


def test_estimates_follow_the_operation_count():
    small, big = (DENSE.plan({"ranks": "2", "n": str(n), "min-reps": 3, "budget": 0.001},
                             ctx())[0] for n in (2048, 4096))
    assert big.estimate_s / small.estimate_s == pytest.approx(8, rel=0.05)
    assert flops("complex", 1000) == 4 * flops("real", 1000)
    assert flops("real", 1000) == pytest.approx(2 / 3 * 1e9 + 1.5e6)
    assert big.timeout_s > 3 * big.estimate_s


@pytest.mark.parametrize("values,msg", [
    ({"n": "300000"}, "needs about"),
    ({"n": "100", "nb": "128"}, "NB 128 is larger than the matrix (n 100)"),
    ({"grids": "3x1"}, "3x1 does not fit 2 ranks"),
    ({"kind": "quad"}, "'quad' is not one of complex, real"),
    ({"n": "2000000"}, "out of range"),
])
def test_refusals(values, msg):
    with pytest.raises(UsageError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        DENSE.plan({"ranks": "2", **values}, ctx())


def test_unknown_memory_asks_for_n():
    with pytest.raises(UsageError, match="give the orders"):
        DENSE.plan({"ranks": "2"}, ctx(mem_available_bytes=0))
    assert DENSE.plan({"ranks": "2", "n": "400"}, ctx(mem_available_bytes=0))


def test_narrow_measures_one_point_again():
    [spec] = DENSE.plan({"ranks": "4", "n": "400,800", "nb": "32,64"}, ctx())
    again = DENSE.narrow(spec, {"n": 800, "nb": 32, "P": 2, "Q": 2, "kind": "complex"})
    assert (spec_arg(again, "--n"), spec_arg(again, "--nb"), spec_arg(again, "--grids")) == \
        ("800", "32", "2x2")
    assert again.expected_results == 4 and "again" in again.label
