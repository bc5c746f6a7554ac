"""Headline figures as named performance variables (hpceval show --perf; packaging/reframe)."""
import math

from hpceval.analysis.perfvars import perf_lines, perf_name, perf_variables


def rec(bench, metric, v, unit, better, stat="median", **params):
    return {"benchmark": bench, "metric": metric, "params": params, "unit": unit,
            "statistic": stat, "better": better,
            "stats": {"n": 3, "min": v, "median": v, "mean": v, "max": v * 2, "stddev": 0,
                      "ci_low": v, "ci_high": v}}


def test_names_are_ascii_and_leave_out_which_variant_won():
    assert perf_name("Ping-pong latency, 8 B") == "ping_pong_latency_8_b"
    assert perf_name("Barotropic solver 96x64, time per iteration (fastest: 1x2 ranks, "
                     "pack/allreduce)") == "barotropic_solver_96x64_time_per_iteration"
    assert perf_name("STREAM triad best, 2 threads") == "stream_triad_best_2_threads"


def test_every_headline_figure_with_its_own_statistic_unit_and_direction():
    recs = [rec("pingpong", "latency", 0.25, "us", "lower", bytes=8),
            rec("pingpong", "bandwidth", 9000.0, "MB/s", "higher", bytes=1 << 20),
            rec("stream", "bandwidth", 10.0, "GB/s", "higher", "max", kernel="triad", threads=1)]
    got = {v["name"]: v for v in perf_variables(recs)}
    assert got["ping_pong_latency_8_b"]["value"] == 0.25
    assert got["ping_pong_latency_8_b"]["better"] == "lower"
    assert got["stream_triad_best_1_thread"]["value"] == 20.0      # max is its statistic
    lines = perf_lines(recs)
    assert "hpceval-perf ping_pong_bandwidth_1_mib 9000.0 MB/s higher" in lines
    for line in lines:                 # five words each: the ReFrame checks' pattern
        prefix, name, value, unit, better = line.split(" ")
        assert prefix == "hpceval-perf" and math.isfinite(float(value))

