"""`run --dry-run` (hpceval/runner/dryrun.py): the plan and its estimate, without launching. The
comm suite's estimate grows no faster than O(P log P) and stays under an hour at 10,000 ranks."""
import math

from hpceval.catalog import PlanContext
from hpceval.catalog.estimate import startup_s
from hpceval.runner.dryrun import dry_run
from hpceval.runner.placement import placement_from_args


def comm_estimate(nranks: int, ppn: int = 16) -> float:
    place = placement_from_args(max(nranks // ppn, 1), ppn, None, None, None, plan_only=True)
    ctx = PlanContext(cores=ppn, llc_bytes=32 << 20, mem_available_bytes=64 << 30,
                      nranks=place.nranks, nodes=len(place.hosts), ppn=ppn)
    return sum(l.estimate_s for l in dry_run(["comm"], [], ctx, place))


def test_comm_suite_grows_no_faster_than_p_log_p():
    est = {p: comm_estimate(p) for p in (16, 1024, 10000)}
    print({p: round(s) for p, s in est.items()})
    plogp = lambda p: p * math.log2(p)
    for small, big in ((16, 1024), (1024, 10000)):
        assert est[big] / est[small] <= plogp(big) / plogp(small)
    assert est[10000] < 3600


def test_plan_only_placement_and_startup_model():
    place = placement_from_args(625, 16, None, None, None, plan_only=True)
    assert place.nranks == 10000 and place.hosts[-1] == "node625"
    assert startup_s(10000) > startup_s(2) > 0
    ctx = PlanContext(cores=2, llc_bytes=1 << 20, mem_available_bytes=1 << 30, nranks=2)
    [launch] = dry_run(["pingpong"], ["budget=0.1", "refine=0", "sizes=8,1K"], ctx, None)
    assert launch.nodes == 1 and abs(launch.measure_s - 0.2) < 1e-9   # 2 sizes x 0.1 s
