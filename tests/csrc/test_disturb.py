"""The harness's disturbance signals beyond preemptions and steal (csrc/harness/disturb.c,
pairline.c): every record says how much slower its ranks' cores ran than their fastest in the
launch, and, for two ranks on one node, how long their cache line took to go round; a slowed
core and a moved pair make the point disturbed (--inject slow-core / far-pair stand in for the
hypervisor, which no test can order)."""
import pytest

from hpceval.records import parse_record
from test_binaries import QUICK, launch


# The judge's order (disturb.c): steal and preemptions are named before the rest, so under a
# loaded machine (tests on two workers) those may name a point first.
EARLIER = ("the hypervisor stole", "other processes preempted")


def named(reason, what: str) -> bool:
    return bool(reason) and (what in reason or reason.startswith(EARLIER))


def latencies(bindir, name, args, nranks=None):
    p = launch(bindir, name, args + QUICK, nranks)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    return [r for r in recs if r["type"] == "result" and r["metric"] == "latency"]


def probed_latencies(bindir, args, want):
    """A pair's latency records, and those with a cache-line probe (want of them at least).
    A point whose probe was preempted in each of its attempts (20 ms in all) records none
    (pairline.c): beside the other worker's ranks a launch can keep fewer, so launch again,
    3 times at most."""
    for _ in range(3):
        recs = latencies(bindir, "pingpong", args)
        probed = [r for r in recs if "pair_line_ns" in r["quiet"]]
        if len(probed) >= want:
            return recs, probed
    raise AssertionError(f"{len(probed)} of {len(recs)} points probed in 3 launches: {recs}")


def test_a_pair_on_one_node_records_its_core_speed_and_its_cache_line(bindir):
    recs, probed = probed_latencies(bindir, ["--sizes", "8,8,8,8,4K,4K", "--refine", "0"], 1)
    assert len(recs) == 6 and all(r["quiet"]["core_slower"] >= 1.0 for r in recs), recs
    # a cache line between two cores of one node: tens of ns to a few us, never 0
    lines = [r["quiet"]["pair_line_ns"] for r in probed]
    assert all(10 < ns < 1e5 for ns in lines), recs


def test_one_rank_records_its_core_speed_and_no_pair(bindir):
    [r, *_] = latencies(bindir, "mem-latency", ["--sizes", "4K,64K"])
    assert r["quiet"]["core_slower"] >= 1.0 and "pair_line_ns" not in r["quiet"], r["quiet"]


def test_a_slowed_core_makes_every_point_disturbed_and_names_the_rank(bindir):
    recs = latencies(bindir, "pingpong", ["--sizes", "8,8,8", "--refine", "0", "--inject",
                                          "slow-core"])
    # the last rank's probe did three times the work at each window's close: 3x its fastest
    assert all(r["quiet"]["core_slower"] >= 2.5 for r in recs), recs
    # a pair moved by the host in between is named before a slowed core
    assert all(named(r["disturbed"], "core ran") or named(r["disturbed"], "cache line")
               for r in recs), [r["disturbed"] for r in recs]


def test_a_moved_pair_makes_the_points_after_the_move_disturbed(bindir):
    recs, probed = probed_latencies(bindir, ["--sizes", "8,8,8,8,8,8", "--refine", "0",
                                             "--inject", "far-pair"], 2)
    first, *later = [r["quiet"]["pair_line_ns"] for r in probed]
    # rank 1 answers 1 us late from the second probe on: the line goes round 1 us slower
    assert all(ns > first + 800 for ns in later), (first, later)
    assert all(named(r["disturbed"], "the pair's cache line took") for r in probed[1:]), probed


@pytest.mark.parametrize("inject", ["slow-core", "far-pair", "preempted"])
def test_the_injections_are_listed_in_help(bindir, inject):
    p = launch(bindir, "pingpong", ["--help"])
    assert p.returncode == 0 and inject in p.stdout
