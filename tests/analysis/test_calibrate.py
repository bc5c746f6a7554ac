"""A twin's calibration from planted records (hpceval/analysis/calibrate.py): its segments pass
through every measured point in the bytes SMPI sends (n + 16), and the node's memory bandwidth
is stated from STREAM's triad, not set."""
import pytest

from hpceval.analysis import calibrate as cal


def _rec(bench, metric, median, unit="us", **params):
    return {"benchmark": bench, "metric": metric, "unit": unit, "params": params,
            "statistic": "median", "better": "lower",
            "stats": {"n": 10, "median": median, "min": median, "max": median}}


def test_segments_pass_through_every_point_in_wire_bytes():
    """Planted: a curve that bends (noise at small sizes, a cache's edge at 256 KiB)."""
    pts = [(1, 0.46, None), (3, 0.45, None), (7, 0.49, None), (8, 0.45, None), (16, 0.52, None),
           (1024, 1.1, None), (262144, 13.4, None), (524288, 27.8, None), (1 << 20, 82.4, None)]
    segs = cal.segments(pts)
    for n, t, _ in pts[1:]:
        first, lat, per_byte = cal.at(segs, n)
        assert lat >= 0 and per_byte > 0
        assert lat + cal.wire(n) * per_byte == pytest.approx(t, rel=1e-9), n


def test_a_first_segment_without_latency_keeps_the_links_latency():
    """Planted: 1 B at 0.10 us, 3 B at 0.40 (a time slice under load): the first segment's
    line needs a negative latency, keeps 0, and the links take the next segment's."""
    segs = cal.segments([(1, 0.10, None), (3, 0.40, None), (8, 0.45, None), (1024, 1.1, None)])
    assert segs[0][1] == 0.0 and segs[1][1] > 0
    lat, bw, lf, _ = cal.factors(segs)
    assert lat == segs[1][1] and lf.startswith("0:0;") and bw > 0


def test_the_memory_bandwidth_is_stated_from_stream():
    run = {"uuid": "u1", "fingerprint": {"cores": 2}, "records": [
        _rec("stream", "bandwidth", 9100.0, "MB/s", kernel="triad", threads=2,
             array_bytes=1 << 30),
        _rec("stream", "bandwidth", 6000.0, "MB/s", kernel="triad", threads=1,
             array_bytes=1 << 30)]}
    [note] = cal._memory_note(run)
    assert note.value.startswith("9100 MB/s, triad, 2 threads") and "run u1 stream" in note.source
    assert "not set" in note.what
    [none] = cal._memory_note({"uuid": "u2", "records": []})
    assert none.value == "not measured" and "'hpceval run stream'" in none.source


def _pp_run(uuid, medians, machine="m1"):
    """A two-node ping-pong run: 8 B, 64 KiB and 1 MiB, pair hosts named in the records."""
    recs = [_rec("pingpong", "latency", t, bytes=b) for b, t in zip((8, 65536, 1 << 20), medians)]
    for r in recs:
        r["extra"] = {"where": {"pair_hosts": ["n1", "n2"]}}
    return {"uuid": uuid, "fingerprint": {"hash": machine}, "records": recs, "launches": []}


def test_several_runs_give_each_point_its_median_run():
    """Planted: three runs, 8 B at 6.8, 4.5 and 4.6 us (the drift measured on this VM): the
    twin's network goes through 4.6 us from the third run, 64 KiB through the first run's."""
    runs = [_pp_run("a", (6.8, 30.0, 220.0)), _pp_run("b", (4.5, 43.0, 320.0)),
            _pp_run("c", (4.6, 31.0, 330.0))]
    merged = cal.median_run(runs)
    pts = {b: (t, rec[cal.FROM_RUN]) for b, t, rec in cal.pingpong_curves(merged)["inter"]}
    assert pts == {8: (4.6, "c"), 65536: (31.0, "c"), 1 << 20: (320.0, "b")}
    fields, _, notes = cal.network(merged)
    segs = cal.segments(cal.pingpong_curves(merged)["inter"])
    assert segs[0][1] + cal.wire(8) * segs[0][2] == pytest.approx(4.6)
    assert any("run c pingpong latency bytes=8 (median 4.6 us)" in n.source for n in notes)
    # an even count takes the lower of the middle two; one run is itself
    assert cal.median_run(runs[:2])["records"][0]["stats"]["median"] == 4.5
    with pytest.raises(cal.UsageError, match="different machines"):
        cal.median_run([runs[0], _pp_run("d", (1, 2, 3), machine="m2")])


def _swap_run(pingpong, swaps):
    """A two-node run: ping-pong and p2p's swap (MPI_Sendrecv) at the same three sizes."""
    run = _pp_run("s", pingpong)
    recs = [_rec("p2p", "latency", t, bytes=b, mode="swap", protocol="sendrecv", pattern="0-1")
            for b, t in zip((8, 65536, 1 << 20), swaps)]
    for r in recs:
        r["extra"] = {"where": {"pair_hosts": ["n1", "n2"]}}
    run["records"] += recs
    return run


def _ois(config: str, n: int) -> float:
    """SMPI 3.32's reading of a piecewise setting (smpi_host.cpp): the last section whose key
    is below n, in us."""
    current = None
    for sec in config.split(";"):
        key, a, b = (float(x) for x in sec.split(":"))
        if current is None or n > key:
            current = (a + b * n) * 1e6
    return current


def test_an_exchange_costs_its_swap_less_one_way():
    """Planted: ping-pong 4.5, 30, 300 us; swap 6.8, 33, 420 us (8 B Open MPI's 1.5 trips on
    the virtual cluster; 64 KiB 10% over one trip; 1 MiB both ways sharing the CPUs). The twin's
    non-blocking sends carry what its own exchange lacks at those sizes, the line between
    them, and no falling line past the last."""
    run = _swap_run((4.5, 30.0, 300.0), (6.8, 33.0, 420.0))
    segs = cal.segments(cal.pingpong_curves(run)["inter"])
    # the twin's own exchange: one way, its bytes 5% longer (SimGrid's cross-traffic)
    cross = {n: 0.05 * cal.wire(n) * cal.at(segs, n)[2] for n in (8, 65536, 1 << 20)}
    d = {8: 2.3 - cross[8], 65536: 3.0 - cross[65536], 1 << 20: 120.0 - cross[1 << 20]}
    ois, notes = cal.exchange(run)
    mid, big = (65536 + (1 << 20)) // 2, 4 << 20
    slope = (d[1 << 20] - d[65536]) / ((1 << 20) - 65536)
    for n, want in ((8, d[8]), (65536, d[65536]), (1 << 20, d[1 << 20]), (4, d[8]),
                    (mid, d[65536] + (mid - 65536) * slope),
                    (big, d[1 << 20] + (big - (1 << 20)) * slope)):
        assert _ois(ois, n) == pytest.approx(want, rel=1e-6), n
    assert 2.29 < d[8] < 2.3 and 105 < d[1 << 20] < 106      # 1 MiB: 15 us of cross-traffic
    assert any("run s p2p latency bytes=8 mode=swap" in n.source and n.value == f"{d[8]:.6g} us"
               for n in notes)
    falling = cal.exchange(_swap_run((4.5, 30.0, 300.0), (6.8, 60.0, 330.0)))[0]
    assert _ois(falling, 4 << 20) == pytest.approx(30.0 - cross[1 << 20], rel=1e-6)
    # a swap faster than one way (noise) costs nothing, never a negative sleep
    assert _ois(cal.exchange(_swap_run((4.5, 30.0, 300.0), (4.0, 31.0, 420.0)))[0], 8) == 0


def test_no_swap_is_named_not_guessed():
    ois, [note] = cal.exchange(_pp_run("p", (4.5, 30.0, 300.0)))
    assert ois is None and "p2p.modes=swap" in note.source and note.value == "not measured"
