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
