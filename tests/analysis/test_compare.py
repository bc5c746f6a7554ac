from hpceval.analysis.compare import compare, deficits


def rec(metric, better, v, **params):
    return {"benchmark": "pingpong", "params": params or {"bytes": 8}, "metric": metric, "unit": "u",
            "statistic": "median", "better": better, "converged": True,
            "stats": {"n": 3, "min": v, "median": v, "mean": v, "max": v, "stddev": 0, "ci_low": v, "ci_high": v}}


def test_deficits_by_direction():
    assert deficits([2.0, 2.5, 4.0], "lower") == [0.0, 0.25, 1.0]
    assert deficits([100.0, 80.0, 50.0], "higher") == [0.0, 0.2, 0.5]


def test_only_shared_points_and_headline():
    a = {"id": 1, "records": [rec("latency", "lower", 1.0, bytes=8), rec("latency", "lower", 5.0, bytes=1024),
                              rec("bandwidth", "higher", 10.0, bytes=1 << 20)]}
    b = {"id": 2, "records": [rec("latency", "lower", 1.5, bytes=8), rec("bandwidth", "higher", 40.0, bytes=1 << 20)]}
    out = compare([a, b])
    assert len(out["rows"]) == 2                         # 1 KiB is only in run a
    lat = next(r for r in out["rows"] if r["metric"] == "latency")
    bw = next(r for r in out["rows"] if r["metric"] == "bandwidth")
    assert lat["deficits"] == [0.0, 0.5] and lat["best"] == [0]
    assert bw["deficits"] == [0.75, 0.0] and bw["best"] == [1]
    assert [h["label"] for h in out["headline"]] == ["Ping-pong latency, 8 B", "Ping-pong bandwidth, 1 MiB"]
    assert [s["best_in"] for s in out["summary"]] == [1, 1]
    assert out["summary"][0]["median_deficit"] == 0.375
