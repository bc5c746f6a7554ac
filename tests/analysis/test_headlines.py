from hpceval.analysis import headlines, value


def rec(bench, metric, stat="median", v=1.0, **params):
    return {"benchmark": bench, "metric": metric, "params": params, "unit": "x", "statistic": stat,
            "stats": {"n": 3, "min": v, "median": v, "mean": v, "max": v * 2, "stddev": 0,
                      "ci_low": v, "ci_high": v}}


def test_picks_exact_then_nearest_points():
    recs = [rec("pingpong", "latency", v=0.2, bytes=8), rec("pingpong", "latency", v=0.3, bytes=16),
            rec("pingpong", "bandwidth", v=9.0, bytes=4 << 20),
            rec("mem-latency", "latency", v=1.0, bytes=12 << 10),
            rec("mem-latency", "latency", v=90.0, bytes=256 << 20),
            rec("stream", "bandwidth", "max", v=10.0, kernel="triad", threads=1),
            rec("stream", "bandwidth", "max", v=15.0, kernel="triad", threads=2)]
    rows = {h["label"]: h["record"] for h in headlines(recs)}
    assert rows["Ping-pong latency, 8 B"]["params"]["bytes"] == 8
    assert rows["Ping-pong bandwidth, 4 MiB"]["params"]["bytes"] == 4 << 20   # largest as fallback
    assert rows["Memory latency, 12 KiB"]["params"]["bytes"] == 12 << 10      # nearest
    assert rows["Memory latency, largest set (256 MiB)"]["params"]["bytes"] == 256 << 20
    assert value(rows["STREAM triad best, 1 thread"]) == 20.0                  # max is the statistic
    assert value(rows["STREAM triad best, 2 threads"]) == 30.0


def test_empty():
    assert headlines([]) == []


def test_barotropic_fastest_untraced_configuration_on_the_largest_grid():
    def baro(metric, v, nx, P, halo="pack", **more):
        return rec("barotropic", metric, v=v, nx=nx, ny=nx, P=P, Q=1, halo=halo, sum="tree",
                   **more)
    recs = [baro("iteration_time", 5.0, 96, 2),                        # small grid: not it
            baro("iteration_time", 210.0, 384, 2),
            baro("iteration_time", 200.0, 384, 2, "put"),
            baro("iteration_time", 150.0, 384, 2, "datatype", traced=True),   # tracer inside
            baro("sim_days_per_day", 9e4, 384, 2, "put"),
            baro("sim_days_per_day", 8e4, 384, 2)]
    rows = {h["label"]: h["record"] for h in headlines(recs)}
    t = rows["Barotropic solver 384x384, time per iteration (fastest: 2x1 ranks, put/tree)"]
    d = rows["Barotropic solver 384x384, simulated days/day (fastest: 2x1 ranks, put/tree)"]
    assert value(t) == 200.0 and value(d) == 9e4
