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
