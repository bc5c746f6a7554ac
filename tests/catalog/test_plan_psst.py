"""Planning the parallel shallow water model over rank counts: one launch per count with the
process grids that fit it (for the overhead breakdown against the 1-rank run)."""
import pytest

from hpceval.catalog import SUITES, PlanContext, plan_targets
from hpceval.errors import UsageError

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)


def arg(spec, name):
    return spec.args[spec.args.index(name) + 1]


def test_rank_sweep_one_launch_per_count():
    specs = plan_targets(["psst"], ["ranks=1,4,2"], CTX)
    assert [s.nranks for s in specs] == [1, 2, 4]
    assert [arg(s, "--grids") for s in specs] == ["1x1", "1x2,2x1", "1x4,2x2,4x1"]
    assert specs[0].label == "psst np=1 T21 L=4"
    # 3 metrics per configuration: 2 mappings x 2 FFTs x 2 sums per grid
    assert [s.expected_results for s in specs] == [24, 48, 72]


def test_listed_grids_keep_those_that_fit_each_count():
    specs = plan_targets(["psst"], ["ranks=2,4", "grids=1x2,2x2"], CTX)
    assert [(s.nranks, arg(s, "--grids")) for s in specs] == [(2, "1x2"), (4, "2x2")]
    with pytest.raises(UsageError, match="none of 2x2 fits 2 ranks"):
        plan_targets(["psst"], ["ranks=2,4", "grids=2x2"], CTX)
    # without a sweep a grid that does not fit --np is an error, as before
    with pytest.raises(UsageError, match="2x2 does not fit 2 ranks"):
        plan_targets(["psst"], ["grids=2x2"], CTX)
    with pytest.raises(UsageError, match="--set ranks: 'x' is not a rank count"):
        plan_targets(["psst"], ["ranks=x"], CTX)


def test_kernels_suite_sweeps_psst_over_1_2_4_ranks():
    specs = [s for s in plan_targets(["kernels"], [], CTX) if s.benchmark == "psst"]
    assert [s.nranks for s in specs] == [1, 2, 4]
    assert "psst" in dict(SUITES["kernels"].entries)


def test_grids_the_code_refuses_are_not_planned():
    # T21: 32 latitudes, 16 north/south pairs (the code's blocks, psst.c), 22 wavenumbers;
    # 8 levels give a 16-row rank 16 units, so 16x16 runs and 32x8 does not
    specs = plan_targets(["psst"], ["ranks=256", "truncation=21", "levels=8", "grids=square"], CTX)
    assert arg(specs[0], "--grids") == "16x16"
    with pytest.raises(UsageError, match="32x8 process grid does not fit T21"):
        plan_targets(["psst"], ["ranks=256", "truncation=21", "levels=8", "grids=32x8"], CTX)
    with pytest.raises(UsageError, match="no process grid of 256 ranks fits"):
        plan_targets(["psst"], ["ranks=256", "truncation=21", "levels=4", "grids=square"], CTX)


def test_a_simulated_rung_beyond_this_host_s_memory_is_left_out_with_a_note():
    """SMPI runs every simulated rank in one process of this host: psst at T170 on 64 and more
    simulated ranks was killed out of memory in the 1,024-rank study, its 64 x 16 simulated
    nodes holding it easily. Each rank other than 0 holds its tables and spectral state, not
    the whole grid (sst_init_spectral); a rung whose ranks together would not fit this host
    is left out before anything runs, and said."""
    from hpceval.catalog.bench_kernels import psst_bytes, sst_bytes
    first, other = psst_bytes(170, 18, 64, {})
    assert first > 2 * sst_bytes(170, 18) and other < sst_bytes(170, 18) / 3
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=64,
                      ppn=16, host_memory_bytes=16 << 30)
    specs = plan_targets(["psst"], ["ranks=16,64,256", "truncation=170", "levels=18",
                                    "grids=squarest"], ctx)
    assert [s.nranks for s in specs] == [16, 64]
    assert any(n.startswith("psst np=256 T170 L=18: left out: its 256 simulated ranks need "
                            "about") and "16.0 GiB" in n for n in ctx.notes), ctx.notes
    # a real allocation of 64 nodes holds each node's ranks only: nothing is left out
    real = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30, nodes=64,
                       ppn=16)
    assert [s.nranks for s in plan_targets(["psst"], ["ranks=16,64,256", "truncation=170",
                                                      "levels=18", "grids=squarest"], real)] \
        == [16, 64, 256]
