"""Preempted samples are set aside, not whole points (csrc/harness/sampler.c): a sample during
which any rank of it was preempted is not kept, the record says how many were dropped, and the
point is disturbed only when more than half of its samples were preempted. `--inject
preempted` makes the last rank report every third sample taken after warm-up; real
preemptions on a loaded machine only add to them."""
import re
import subprocess

from hpceval.records import parse_record
from test_binaries import launch

REPS = ["--budget", "1", "--min-reps", "12", "--max-reps", "12", "--warmup", "1"]


def results(bindir, name, args, nranks=None):
    p = launch(bindir, name, args + REPS, nranks)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    return [r for r in recs if r["type"] == "result"]


def assert_planted_set_aside(recs):
    assert recs
    for r in recs:
        n, dropped = r["stats"]["n"], r["dropped"]
        # of the samples taken (kept + dropped), every third was reported preempted
        assert dropped >= (n + dropped) // 3 >= 1, r
        assert len(r["samples"]) == n, r
        why = r["disturbed"] or ""
        m = re.search(r"preempted the ranks during (\d+) of (\d+) samples", why)
        # disturbed by preemption only when more than half were hit (a loaded machine)
        assert m is None or 2 * int(m[1]) > int(m[2]), why


def test_a_pair_sets_aside_the_samples_its_other_rank_was_preempted_in(bindir):
    # the last rank (1) reports them, rank 0 writes the records: the ranks agreed
    assert_planted_set_aside(results(bindir, "pingpong", ["--sizes", "8,4K,64K", "--refine", "0",
                                                          "--inject", "preempted"]))


def test_one_rank_sets_aside_its_preempted_samples(bindir):
    assert_planted_set_aside(results(bindir, "mem-latency", ["--sizes", "16K,1M",
                                                             "--inject", "preempted"]))


def test_without_preemption_nothing_is_planted(bindir):
    for r in results(bindir, "mem-latency", ["--sizes", "16K"]):
        assert r["dropped"] >= 0 and len(r["samples"]) == r["stats"]["n"], r


def test_beside_competitors_the_kept_samples_are_the_unstalled_ones(bindir):
    # one busy process per core beside the pair: the ranks lose time slices of milliseconds,
    # and a batch of 50 us that lost one would be 20-1000x its median (a 0.45 us 8 B round
    # trip's batch stalled to 640 us per round trip when the stalls were kept)
    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
    try:
        p = launch(bindir, "pingpong", ["--sizes", "8,4K,64K", "--refine", "0", "--budget", "2",
                                        "--min-reps", "200", "--max-reps", "200",
                                        "--warmup", "1"])
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [r for r in map(parse_record, p.stdout.splitlines())
            if r["type"] == "result" and r["metric"] == "latency"]
    assert len(recs) == 3 and sum(r["dropped"] for r in recs) > 0, recs
    # Kept stalls made every point's 99th percentile 600-1400x its median; set aside, it is
    # 1.3x. Beside the other test worker as well (a fresh-clone make test), one point in three
    # kept a 265 us and an 8 ms sample (64 KiB, median 4 us): stalls the run queues do not show
    # (the host's), so the test asks it of one point, not of each.
    ratios = [sorted(r["samples"])[int(0.99 * len(r["samples"]))] / r["stats"]["median"]
              for r in recs if not r["disturbed"]]
    assert not ratios or min(ratios) < 20, [(r["dropped"], sorted(r["samples"])[-3:]) for r in recs]
