"""The warnings box and one-screen summary of a run, from hand-made records."""
from hpceval.analysis.headlines import size_label
from hpceval.analysis.summary import summary_rows
from hpceval.analysis.warnings import warnings
from hpceval.quality import at_floor


def rec(bench, metric, v, unit, better="lower", converged=True, **params):
    return {"benchmark": bench, "metric": metric, "unit": unit, "better": better,
            "statistic": "median", "converged": converged, "params": params,
            "stats": {"n": 20, "min": v, "median": v, "mean": v, "max": v, "stddev": 0,
                      "ci_low": v * 0.99, "ci_high": v * 1.01}}


def test_sizes_read_exactly():
    assert [size_label(n) for n in (8, 65536, 65537, 1000000, 3 << 19)] == [
        "8 B", "64 KiB", "65,537 B", "1,000,000 B", "1536 KiB"]
    assert size_label(1000000, approx=True) == "976.6 KiB"


def test_floor_oversubscription_and_unconverged_are_warned_about():
    floor = rec("collectives", "latency", 0.001, "us", op="bcast", bytes=4, nranks=4)
    floor_bw = rec("collectives", "bandwidth", 4000.0, "MB/s", "higher", op="bcast", bytes=4, nranks=4)
    assert at_floor(floor) and at_floor(floor_bw)
    run = {"status": "ok", "fingerprint": {"cores": 2},
           "launches": [{"benchmark": "collectives", "label": "collectives np=4", "status": "ok",
                         "meta": {"nranks": 4, "hosts": ["a"] * 4}}],
           "records": [floor, floor_bw,
                       rec("pingpong", "latency", 0.3, "us", converged=False, bytes=8, ranks="0-1")]}
    kinds = {w.kind: w for w in warnings(run)}
    assert set(kinds) == {"floor", "oversubscribed", "unconverged"}
    assert kinds["floor"].text.startswith("2 points hit the 1 ns floor")
    assert "4 ranks" not in kinds["oversubscribed"].text and "2 cores" in kinds["oversubscribed"].text


def test_summary_holds_measured_rows_with_their_quality():
    run = {"fingerprint": {"cores": 2},
           "launches": [{"benchmark": "pingpong", "meta": {"hosts": ["n1", "n1"]}}],
           "records": [rec("pingpong", "latency", 0.25, "us", bytes=8, ranks="0-1"),
                       {**rec("pingpong", "bandwidth", 9000.0, "MB/s", "higher", bytes=1 << 20,
                              ranks="0-1"), "extra": {"disturbed": "the hypervisor stole 20%"}}]}
    rows = {r["quantity"]: r for r in summary_rows(run)}
    assert rows["Latency"]["quality"] == "ok" and rows["Latency"]["ci_low"] == 0.25 * 0.99
    assert rows["Bandwidth"]["quality"] == "disturbed (steal time)"


def test_a_best_rate_row_says_its_interval_is_the_median_s():
    """STREAM's figure is its best rate; the interval beside it is the median's (the report's
    header says CIs are the median's), so the first screen says so where the two differ."""
    from hpceval.views.data import summary_view
    stream = {**rec("stream", "bandwidth", 24.3, "GB/s", "higher", kernel="triad", threads=1,
                    array_bytes=1 << 30),
              "statistic": "max", "stats": {"n": 20, "min": 7.0, "median": 9.6, "mean": 10.0,
                                            "max": 24.3, "stddev": 3.0, "ci_low": 7.9,
                                            "ci_high": 11.5}}
    lat = rec("pingpong", "latency", 0.25, "us", bytes=8, ranks="0-1")
    run = {"fingerprint": {"cores": 2}, "records": [stream, lat],
           "launches": [{"benchmark": "pingpong", "meta": {"hosts": ["n1", "n1"]}}]}
    rows = {r["quantity"]: r for r in summary_view(run)["rows"]}
    assert rows["Main memory, 1 core (STREAM)"]["ci"] == "median's: 7.9 – 11.5", rows
    assert rows["Latency"]["ci"].startswith("0.2475 – "), rows["Latency"]
