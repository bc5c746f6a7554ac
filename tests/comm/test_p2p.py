"""hpceval-p2p: every mode and protocol at tiny sizes, patterns, bad input, corrupted data."""
import pytest

from helpers_comm import error_of, launch, run_ok

SIZES = ["--sizes", "0,8,4K,64K"]


def test_every_mode_and_protocol(bindir):
    recs = run_ok(bindir, "p2p", SIZES + ["--modes", "all", "--protocols", "all"])
    # the plan counts the records the binary makes (a simulated launch's estimate is its records
    # times their learned cost)
    from hpceval.catalog import PlanContext, plan_targets
    ctx = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
    (spec,) = plan_targets(["p2p"], ["p2p.sizes=0,8,4K,64K", "p2p.patterns=0-1"], ctx)
    assert spec.expected_results == len(recs)
    combos = {(r["params"]["mode"], r["params"]["protocol"]) for r in recs}
    # pingpong/stream take every protocol but sendrecv; swap/bistream the simultaneous ones
    expect = ({("pingpong", p) for p in ("send", "isend", "ssend", "rsend", "persistent",
                                          "put-fence", "get-fence", "put-lock", "get-lock")}
              | {("stream", p) for p in ("send", "isend", "ssend", "rsend", "persistent",
                                          "put-fence", "get-fence", "put-lock", "get-lock")}
              | {("swap", p) for p in ("sendrecv", "isend", "persistent", "put-fence", "get-fence")}
              | {("bistream", p) for p in ("isend", "persistent", "put-fence", "get-fence")})
    assert combos == expect
    for r in recs:
        p = r["params"]
        assert p["pattern"] == "0-1" and p["ranks"] == "0-1"
        if r["metric"] == "latency":
            assert p["mode"] in ("pingpong", "swap") and r["unit"] == "us"
        else:
            assert p["bytes"] > 0 and r["unit"] == "MB/s"
    # pingpong bandwidth is n / latency, sample by sample: the best of one is the best of the other
    lat = {(r["params"]["protocol"], r["params"]["bytes"]): r["stats"]["min"] for r in recs
           if r["params"]["mode"] == "pingpong" and r["metric"] == "latency"}
    bw = [r for r in recs if r["params"]["mode"] == "pingpong" and r["metric"] == "bandwidth"]
    for r in bw:
        n = r["params"]["bytes"]
        assert r["stats"]["max"] == pytest.approx(n / lat[(r["params"]["protocol"], n)], rel=1e-4)


@pytest.mark.parametrize("pattern,pairs", [("intra-pairs", 2), ("0-k", 1), ("ring", 4),
                                           ("cross-pairs", 2)])
def test_patterns_on_emulated_nodes(bindir, pattern, pairs):
    recs = run_ok(bindir, "p2p", ["--sizes", "8,1K", "--modes", "swap", "--protocols",
                                  "sendrecv,isend", "--pattern", pattern,
                                  "--ranks-per-node", "2"], nranks=4)
    assert {r["params"]["pattern"] for r in recs} == {pattern}
    assert len(recs) == 2 * 2 * 2   # 2 sizes x 2 protocols x (latency, bandwidth)
    if pattern == "0-k":
        assert recs[0]["params"]["ranks"] == "0-2"   # first rank of the second emulated node


def test_ring_of_two_ranks(bindir):
    """Each rank's peer both ways: rank 0 starts the handshake (both waited to receive, and a
    swap on 2 ranks hung until its time limit)."""
    recs = run_ok(bindir, "p2p", ["--sizes", "8,64K", "--modes", "swap", "--protocols",
                                  "sendrecv", "--pattern", "ring"], nranks=2)
    assert sorted((r["params"]["bytes"], r["metric"]) for r in recs) == [
        (8, "bandwidth"), (8, "latency"), (65536, "bandwidth"), (65536, "latency")]


@pytest.mark.parametrize("args,nranks,message", [
    (["--pattern", "intra-pairs"], 3, "even number of ranks"),
    (["--pattern", "0-k"], 2, "needs ranks on at least 2 nodes"),
    (["--pattern", "cross-pairs"], 2, "at least 2 nodes"),
    (["--pattern", "cross-pairs", "--ranks-per-node", "1"], 3, "even number of nodes"),
    (["--modes", "swap", "--protocols", "ssend"], 2, "no runnable mode/protocol combination"),
    (["--pattern", "ring", "--modes", "pingpong"], 2, "pattern ring needs mode swap"),
    (["--modes", "warp"], 2, "--modes: 'warp'"),
])
def test_impossible_placements_fail_clearly(bindir, args, nranks, message):
    p = launch(bindir, "p2p", ["--sizes", "8"] + args, nranks=nranks, timeout=60)
    status, msg = error_of(p)
    assert status == 2 and message in msg


@pytest.mark.parametrize("mode,proto", [("pingpong", "send"), ("stream", "put-lock"),
                                        ("stream", "get-lock"), ("swap", "get-fence")])
def test_corrupted_data_fails(bindir, mode, proto):
    p = launch(bindir, "p2p", ["--sizes", "1K", "--modes", mode, "--protocols", proto,
                               "--inject", "corrupt", "--budget", "0.02"], timeout=60)
    status, msg = error_of(p)
    assert status != 0 and "data check failed" in msg


def test_cache_flush_between_samples(bindir):
    recs = run_ok(bindir, "p2p", ["--sizes", "64K", "--flush", "1M"])
    assert [r["metric"] for r in recs] == ["latency", "bandwidth"]   # default: pingpong, send


def test_adaptive_refinement_adds_sizes_inside_the_range(bindir):
    listed = [64, 1024, 4096, 8192, 65536]
    recs = run_ok(bindir, "p2p", ["--sizes", ",".join(map(str, listed)), "--refine", "3",
                                  "--refine-tol", "0.001"])
    sizes = [r["params"]["bytes"] for r in recs if r["metric"] == "latency"]
    assert sizes[:5] == listed and len(set(sizes)) == len(sizes)
    extra = sizes[5:]
    assert 1 <= len(extra) <= 3 and all(64 < n < 65536 for n in extra)
