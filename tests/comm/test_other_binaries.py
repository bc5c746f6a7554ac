"""collectives, distance, hotspot, random2, halo: tiny real runs, checks that bite, bad input."""
import pytest

from helpers_comm import error_of, launch, run_ok

OPS = ("barrier", "bcast", "reduce", "reduce-null", "allreduce", "allgather", "alltoall",
       "alltoallv")


@pytest.mark.parametrize("nranks", [2, 3])
def test_collectives(bindir, nranks):
    recs = run_ok(bindir, "collectives", ["--sizes", "4,1K"], nranks=nranks)
    lat = {(r["params"]["op"], r["params"]["bytes"]): r for r in recs if r["metric"] == "latency"}
    assert set(lat) == {("barrier", 0)} | {(op, n) for op in OPS[1:] for n in (4, 1024)}
    for r in recs:
        assert r["params"]["nranks"] == nranks
        # every operation's time has the barrier's own (measured first) subtracted
        assert r["barrier_us"] > 0 or r["params"]["op"] == "barrier"
    mean = {(r["params"]["op"], r["params"]["bytes"]): r for r in recs
            if r["metric"] == "latency_mean"}
    assert set(mean) == set(lat)
    raw = {(r["params"]["op"], r["params"]["bytes"]): r for r in recs if r["metric"] == "latency_raw"}
    assert set(raw) == set(lat) - {("barrier", 0)}
    for key, r in raw.items():   # the barrier's cost was subtracted from the raw time
        assert r["stats"]["median"] >= lat[key]["stats"]["min"]


def test_collectives_corrupt_and_bad_input(bindir):
    status, msg = error_of(launch(bindir, "collectives", ["--sizes", "1K", "--inject", "corrupt",
                                                          "--budget", "0.02"], nranks=3))
    assert status != 0 and "data check failed: bcast" in msg
    # the reduces' check reads the root's result: a wrong byte there fails MPI_SUM's and the
    # null operation's (each element must be one rank's contribution)
    for op in ("reduce", "reduce-null"):
        status, msg = error_of(launch(bindir, "collectives", ["--ops", op, "--sizes", "64",
                                                              "--inject", "corrupt",
                                                              "--budget", "0.02"], nranks=3))
        assert status != 0 and f"data check failed: {op} of 64 bytes" in msg and "rank 0" in msg
    status, msg = error_of(launch(bindir, "collectives", ["--ops", "scan"]))
    assert status == 2 and "'scan' is not a collective" in msg


def test_distance_full_matrix_with_nodes(bindir):
    recs = run_ok(bindir, "distance", ["--sizes", "8", "--full", "1", "--ranks-per-node", "2"],
                  nranks=4)
    pairs = {(r["params"]["src"], r["params"]["dst"]) for r in recs}
    assert pairs == {(a, b) for a in range(4) for b in range(a + 1, 4)}
    for r in recs:
        p = r["params"]
        assert p["src_node"] == p["src"] // 2 and p["dst_node"] == p["dst"] // 2
        assert p["src_socket"] >= -1 and p["dst_cpu"] >= 0


def test_distance_from_rank0(bindir):
    recs = run_ok(bindir, "distance", ["--sizes", "8,64K", "--protocol", "put-fence"], nranks=3)
    assert {(r["params"]["src"], r["params"]["dst"]) for r in recs} == {(0, 1), (0, 2)}


def test_distance_to_listed_ranks(bindir):
    recs = run_ok(bindir, "distance", ["--sizes", "8", "--dests", "1,3"], nranks=4)
    assert {(r["params"]["src"], r["params"]["dst"]) for r in recs} == {(0, 1), (0, 3)}
    for dests, message in (("3,2", "not a rank 1..3 in ascending order"),
                           ("4", "not a rank 1..3")):
        status, msg = error_of(launch(bindir, "distance", ["--dests", dests], nranks=4))
        assert status == 2 and message in msg


def test_hotspot(bindir):
    recs = run_ok(bindir, "hotspot", ["--sizes", "1K,64K", "--window", "4"], nranks=3)
    assert sorted((r["params"]["senders"], r["params"]["bytes"]) for r in recs) == \
        [(1, 1024), (1, 65536), (2, 1024), (2, 65536)]
    status, msg = error_of(launch(bindir, "hotspot", ["--sizes", "1K", "--inject", "corrupt"]))
    assert status != 0 and "data check failed" in msg


def test_random2(bindir):
    recs = run_ok(bindir, "random2", ["--sizes", "8,4K"], nranks=4)
    assert {(r["metric"], r["params"]["bytes"]) for r in recs} == \
        {("latency", 8), ("latency", 4096), ("bandwidth", 8), ("bandwidth", 4096)}
    status, msg = error_of(launch(bindir, "random2", ["--sizes", "8"], nranks=3))
    assert status == 2 and "even number of ranks" in msg


# one rank: every neighbour is the rank itself (periodic), puts included
@pytest.mark.parametrize("nranks,grid", [(1, "1x1"), (2, "2x1"), (4, "2x2")])
def test_halo(bindir, nranks, grid):
    recs = run_ok(bindir, "halo", ["--tile", "16", "--widths", "1,3"], nranks=nranks)
    got = {(r["params"]["method"], r["params"]["neighbours"], r["params"]["width"])
           for r in recs if r["metric"] == "latency"}
    assert got == {(m, nb, w) for m in ("pack", "datatype", "put") for nb in (4, 8) for w in (1, 3)}
    assert {r["params"]["grid"] for r in recs} == {grid}
    # bytes per exchange: 4 neighbours send 4 * w * tile doubles
    r = next(r for r in recs if r["metric"] == "bandwidth" and r["params"]["neighbours"] == 4
             and r["params"]["width"] == 3 and r["params"]["method"] == "pack")
    lat = next(x for x in recs if x["metric"] == "latency" and x["params"] == r["params"])
    assert r["stats"]["max"] == pytest.approx(4 * 3 * 16 * 8 / lat["stats"]["min"], rel=1e-4)


@pytest.mark.parametrize("method", ["pack", "datatype", "put"])
def test_halo_corrupt(bindir, method):
    status, msg = error_of(launch(bindir, "halo", ["--tile", "8", "--widths", "1", "--methods",
                                                   method, "--inject", "corrupt"], nranks=3))
    assert status != 0 and "data check failed: halo" in msg
    status, msg = error_of(launch(bindir, "halo", ["--tile", "4", "--widths", "8"]))
    assert status == 2 and "larger than the tile" in msg
