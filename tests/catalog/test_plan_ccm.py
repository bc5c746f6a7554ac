"""Planning the CCM-like grid-point side: one launch per rank count on the process grid the
binary picks (Q even where the ranks allow: a swap partner for every block); the swap left out,
with a note, where Q is odd; grids that do not divide, or blocks narrower than the halo, refused
before anything launches."""
import pytest

from hpceval.catalog import BENCHMARKS, SUITES, PlanContext, plan_targets
from hpceval.catalog.registry import STUDY
from hpceval.catalog.bench_ccm import halo, process_grid
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def arg(spec, name):
    return spec.args[spec.args.index(name) + 1]


def test_the_grid_is_the_binary_s():
    # csrc/kernels/ccm.c process_grid: Q the smallest even factor at least sqrt(n)
    assert [process_grid(n) for n in (1, 2, 4, 6, 8, 9, 16, 32)] == [
        (1, 1), (1, 2), (2, 2), (1, 6), (2, 4), (3, 3), (4, 4), (4, 8)]
    assert halo(128, 64) == (3, 3) and halo(32, 16) == (3, 3)


def test_one_launch_per_count_and_no_swap_without_a_partner():
    notes = []
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30,
                      notes=notes)
    specs = plan_targets(["ccm"], ["ranks=1,2,4"], ctx)
    assert [(s.nranks, arg(s, "--npe"), arg(s, "--balances")) for s in specs] == [
        (1, "1x1", "none"), (2, "1x2", "none,swap"), (4, "2x2", "none,swap")]
    assert [s.expected_results for s in specs] == [2, 4, 4]
    assert any("ccm np=1: balances=swap left out" in n for n in notes)
    assert all(0 < s.estimate_s < s.timeout_s for s in specs)
    with pytest.raises(UsageError, match="the swap needs an even Q"):
        plan_targets(["ccm"], ["ranks=1", "balances=swap"], CTX)


def test_grids_that_do_not_fit_are_refused():
    with pytest.raises(UsageError, match="does not divide 30x64"):
        plan_targets(["ccm"], ["ranks=8", "nlon=30"], CTX)
    with pytest.raises(UsageError, match=r"narrower than the departure points' halo \(3x3\)"):
        plan_targets(["ccm"], ["ranks=8", "nlon=8"], CTX)


def test_the_kernels_suite_has_it():
    specs = [s for s in plan_targets(["kernels"], [], CTX) if s.benchmark == "ccm"]
    assert [s.nranks for s in specs] == [1, 2, 4]
    assert "ccm" in dict(SUITES["kernels"].entries)


def test_a_ladder_keeps_to_the_counts_whose_grid_holds_the_grid():
    """The study's ladders across nodes of 100 ranks: 100 x 2^j never divides a power-of-two
    grid, so those rungs run on the same nodes with the most ranks a node whose process grid
    holds it (64: 128 ranks on 2 nodes), and a count beyond the blocks' halo is refused."""
    notes = []
    ctx = PlanContext(cores=100, llc_bytes=32 << 20, mem_available_bytes=256 << 30,
                      nodes=4, ppn=100, notes=notes)
    specs = plan_targets(["ccm"], ["ranks=ladder", "steps=1"], ctx)
    placed = {(s.nranks, s.ppn, arg(s, "--npe")) for s in specs}
    assert {(64, None, "8x8"), (128, 64, "8x16"), (256, 64, "16x16")} <= placed
    assert not any(s.nranks in (100, 200, 400) for s in specs)
    assert any("128 ranks as 2 nodes x 64" in n for n in notes)
    rule = BENCHMARKS["ccm"].rank_rule({"nlon": "128", "nlat": "64"})
    assert [n for n in (256, 512, 1024) if rule.allows(n)] == [256, 512]   # 1,024: 2-point rows


def test_the_study_draws_t42_and_t170():
    entries = [dict(s) for b, s in STUDY if b == "ccm"]
    assert {(e["nlon"], e["nlat"], e["levels"], e["ranks"]) for e in entries} == {
        ("128", "64", "18", "ladder<=512"), ("512", "256", "18", "ladder>=16")}
