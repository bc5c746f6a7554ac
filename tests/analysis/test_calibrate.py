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
