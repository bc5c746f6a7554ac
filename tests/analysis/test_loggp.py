"""hpceval.analysis.loggp on hand-made records (export format) with hand-computed answers."""
import pytest

from hpceval.analysis.loggp import fit_sizes, loggp_params, message_time, slope

SIZES = [0, 1024, 16384, 32768]
MEDIANS = {"round_trip": [1.0, 2.0, 6.0, 10.0], "gap": [0.2, 0.5, 2.0, 3.6],
           "o_s": [0.1, 0.3, 1.5, 2.5], "o_r": [0.15, 0.35, 1.2, 2.0]}


def rec(metric, bytes_, median, hosts=("n1", "n1"), **extra):
    return {"benchmark": "loggp", "metric": metric, "unit": "us", "statistic": "median",
            "better": "lower", "params": {"bytes": bytes_, "ranks": "0-1"}, "converged": True,
            "stats": {"n": 10, "min": median * 0.9, "median": median, "mean": median,
                      "max": median * 1.1, "stddev": 0.01, "ci_low": median * 0.95,
                      "ci_high": median * 1.05},
            "extra": {"check": "ok", "where": {"pair_hosts": list(hosts)}, **extra}}


def run_of(medians=MEDIANS, hosts=("n1", "n1"), summary=None):
    recs = [rec(m, s, v[i], hosts) for m, v in medians.items() for i, s in enumerate(SIZES)]
    return {"records": recs + ([summary] if summary else [])}


def test_from_per_size_medians():
    p = loggp_params(run_of())
    assert p["source"] == "per-size medians" and p["where"] == "intra-node"
    assert p["sizes"] == SIZES and p["at_bytes"] == 0
    assert p["rtt_us"] == MEDIANS["round_trip"] and p["g_us_by_size"] == MEDIANS["gap"]
    assert p["o_s_us_by_size"] == MEDIANS["o_s"] and p["o_r_us_by_size"] == MEDIANS["o_r"]
    # L = 1.0 / 2 - 0.1 - 0.15
    assert p["L_us"] == pytest.approx(0.25) and not p["L_clipped"] and p["L_ci_us"] is None
    assert (p["o_s_us"], p["o_r_us"], p["g_us"]) == (0.1, 0.15, 0.2)
    # G over 16 KiB and 32 KiB (>= 32 KiB / 16): (3.6 - 2.0) / 16384 us per byte
    assert p["G_fit_bytes"] == [16384, 32768]
    assert p["G_us_per_byte"] == pytest.approx(1.6 / 16384)
    assert p["bandwidth_MBps"] == pytest.approx(10240.0)
    # one message of 1025 bytes: 0.25 + 0.1 + 0.15 + 1024 * 1.6 / 16384 = 0.6 us
    assert message_time(p, 1025) == pytest.approx(0.6)
    assert message_time(p, 0) == message_time(p, 1) == pytest.approx(0.5)


def test_negative_latency_is_clipped_and_said():
    m = dict(MEDIANS, round_trip=[0.2, 2.0, 6.0, 10.0])       # 0.1 - 0.1 - 0.15 < 0
    p = loggp_params(run_of(m))
    assert p["L_us"] == 0.0 and p["L_clipped"]


def test_the_summary_record_gives_L_and_G_with_their_CIs():
    s = rec("L", 0, 0.3, L_clipped=False, G_us_per_byte=1e-4, G_ci_low=0.9e-4, G_ci_high=1.2e-4,
            G_fit_min_bytes=16384, G_fit_max_bytes=32768)
    p = loggp_params(run_of(summary=s))
    assert p["source"] == "summary record"
    assert p["L_us"] == 0.3 and p["L_ci_us"] == [pytest.approx(0.285), pytest.approx(0.315)]
    assert p["G_us_per_byte"] == 1e-4 and p["G_ci_us_per_byte"] == [0.9e-4, 1.2e-4]
    assert p["bandwidth_MBps"] == pytest.approx(10000.0) and p["G_fit_bytes"] == [16384, 32768]
    # 0.3 + 0.1 + 0.15 + 100 * 1e-4
    assert message_time(p, 101) == pytest.approx(0.56)


def test_placement_and_nothing_measured():
    p = loggp_params(run_of(hosts=("n1", "n2")))
    assert p["where"] == "inter-node"
    assert loggp_params(run_of(hosts=("n1", "n2")), "intra-node") is None
    assert loggp_params(run_of(hosts=("n1", "n2")), "inter-node")["L_us"] == pytest.approx(0.25)
    assert loggp_params({"records": []}) is None
    assert loggp_params({}) is None


def test_fit_sizes_and_slope():
    assert fit_sizes([0, 8, 64]) == [8, 64]                 # 8 * 16 >= 64
    assert fit_sizes([0, 1024, 1 << 20]) == [1024, 1 << 20]  # one large size: the next joins
    assert fit_sizes([0, 65536, 131072, 1 << 20]) == [65536, 131072, 1 << 20]
    assert fit_sizes([5, 5]) == [] and fit_sizes([]) == []
    assert slope([0, 1, 2], [1, 3, 5]) == pytest.approx(2.0)
    assert slope([0, 1, 2], [0, 1, 5]) == pytest.approx(2.5)   # least squares: (-1 * -2 + 1 * 3) / 2
