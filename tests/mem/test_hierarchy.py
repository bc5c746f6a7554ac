"""The hierarchy detector on synthetic curves with known steps and noise, and the analysis of
runs: comparison with the fingerprint, the latency matrix, the contention ratio."""
import math

import numpy as np
import pytest

from hpceval.analysis.hierarchy import contention, hierarchy, latency_matrix
from hpceval.levels import detect_levels

CAPS = [32 << 10, 512 << 10, 32 << 20]        # L1d, L2, L3
LAT = [1.2, 4.0, 15.0, 110.0]                 # ns, the last is memory
BW = [150.0, 90.0, 60.0, 18.0]                # GB/s


def model(ws, caps, levels):
    """Random access with random replacement: past a level's capacity, cap/ws of the accesses
    still hit there, the rest go on to the next level (the shape the real curves have)."""
    out, hit_left = 0.0, 1.0
    for cap, v in zip(caps, levels):
        h = min(1.0, cap / ws) ** 2 if ws > cap else 1.0
        out += hit_left * h * v
        hit_left *= 1 - h
    return out + hit_left * levels[-1]


def bw_model(ws, caps, rates):
    return 1.0 / model(ws, caps, [1.0 / r for r in rates])   # time per byte adds up


def sweep(lo, hi, per_octave):
    k = np.arange(0, int(math.log2(hi / lo) * per_octave) + 1)
    return [int(lo * 2 ** (i / per_octave)) // 64 * 64 for i in k]


def noisy(values, rel, rng, outliers=0):
    v = np.array(values) * np.exp(rng.normal(0, rel, len(values)))
    for i in rng.choice(len(v), outliers, replace=False):
        v[i] *= 1.6                                    # a disturbed point
    return list(v)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("noise", [0.0, 0.03, 0.08])
def test_latency_steps_found_within_a_factor_2(seed, noise):
    rng = np.random.default_rng(seed)
    sizes = sweep(4 << 10, 256 << 20, 2)
    lat = noisy([model(s, CAPS, LAT) for s in sizes], noise, rng, outliers=2 if noise else 0)
    levels = detect_levels(sizes, lat, "latency")
    assert len(levels) == 4, levels
    for lv, cap, want in zip(levels, CAPS + [None], LAT):
        if cap:
            assert 0.5 <= lv["size"] / cap <= 2.0, (lv, cap)
        else:
            assert lv["size"] is None                   # the last plateau is memory
        assert lv["value"] == pytest.approx(want, rel=0.25)


@pytest.mark.parametrize("seed", range(5))
def test_bandwidth_steps_found_within_a_factor_2(seed):
    rng = np.random.default_rng(100 + seed)
    sizes = sweep(1 << 10, 128 << 20, 4)
    bw = noisy([bw_model(s, CAPS, BW) for s in sizes], 0.03, rng, outliers=1)
    levels = detect_levels(sizes, bw, "bandwidth")
    assert [lv["size"] is None for lv in levels] == [False, False, False, True]
    for lv, cap in zip(levels, CAPS):
        assert 0.5 <= lv["size"] / cap <= 2.0


def test_flat_or_short_curves_have_no_cache_level():
    rng = np.random.default_rng(1)
    sizes = sweep(4 << 10, 64 << 20, 4)
    levels = detect_levels(sizes, noisy([100.0] * len(sizes), 0.05, rng), "latency")
    assert len(levels) == 1 and levels[0]["size"] is None
    assert detect_levels([4096, 8192], [1.0, 2.0]) == []


def rec(bench, metric, v, **params):
    return {"benchmark": bench, "metric": metric, "unit": "ns" if metric == "latency" else "GB/s",
            "statistic": "median", "better": "lower", "converged": True, "params": params,
            "stats": {"n": 10, "min": v, "median": v, "mean": v, "max": v, "stddev": 0,
                      "ci_low": v, "ci_high": v}}


def fingerprint(l2=512 << 10):
    return {"caches": [{"level": 1, "type": "Data", "size_bytes": 32 << 10},
                       {"level": 1, "type": "Instruction", "size_bytes": 32 << 10},
                       {"level": 2, "type": "Unified", "size_bytes": l2},
                       {"level": 3, "type": "Unified", "size_bytes": 32 << 20}]}


def synthetic_run(l2=512 << 10, pages="thp"):
    recs = []
    for s in sweep(4 << 10, 256 << 20, 2):
        recs.append(rec("mem-latency", "latency", model(s, CAPS, LAT), bytes=s, stride=64,
                        order="random", pages=pages, cpu=-1, node=-1))
        # a base-page curve with a TLB step must not be the one used when THP is there
        recs.append(rec("mem-latency", "latency", model(s, CAPS, LAT) * (3 if s > 4 << 20 else 1),
                        bytes=s, stride=64, order="random", pages="base", cpu=-1, node=-1))
    for s in sweep(1 << 10, 128 << 20, 4):
        recs.append(rec("mem-bandwidth", "bandwidth", bw_model(s, CAPS, BW), mode="read", bytes=s,
                        threads=1, pages="thp"))
    return {"records": recs, "fingerprint": fingerprint(l2)}


def test_hierarchy_table_agrees_with_the_fingerprint():
    h = hierarchy(synthetic_run())
    assert h["agrees"] and "thp" in h["source"]
    names = [r["level"] for r in h["levels"]]
    assert names == ["L1d", "L2", "L3", "memory"]
    for row, lat, bw in zip(h["levels"], LAT, BW):
        assert row["latency_ns"] == pytest.approx(lat, rel=0.2)
        assert row["bandwidth_gbs"] == pytest.approx(bw, rel=0.2)
        assert not row["flag"]


def test_hierarchy_flags_a_cache_size_the_curve_contradicts():
    h = hierarchy(synthetic_run(l2=4 << 20))        # the fingerprint claims 4 MiB of L2
    assert not h["agrees"]
    l2 = next(r for r in h["levels"] if r["level"] == "L2")
    assert l2["expected"] == 4 << 20 and "fingerprint's L2" in l2["flag"]


def test_hierarchy_from_bandwidth_alone_and_nothing_without_curves():
    run = synthetic_run()
    run["records"] = [r for r in run["records"] if r["benchmark"] == "mem-bandwidth"]
    h = hierarchy(run)
    assert h["source"].startswith("mem-bandwidth") and h["agrees"]
    assert hierarchy({"records": [], "fingerprint": fingerprint()}) is None


def test_latency_matrix_and_contention_ratio():
    recs = [rec("mem-latency", "latency", 100.0 + 20 * (c != n), bytes=1 << 28, stride=64,
                order="random", pages="base", cpu=c, node=n) for c in (0, 1) for n in (0, 1)]
    recs += [rec("mem-contention", "bandwidth", 20.0, experiment="per-core", cores=1),
             rec("mem-contention", "bandwidth", 12.0, experiment="per-core", cores=4)]
    for k, (b, l) in enumerate([(20.0, 100.0), (17.0, 120.0), (14.0, 150.0), (12.0, 180.0)]):
        recs += [rec("mem-contention", "bandwidth", b, experiment="loaded", others=k),
                 rec("mem-contention", "latency", l, experiment="loaded", others=k)]
    run = {"records": recs}
    m = latency_matrix(run)
    assert m["cpus"] == [0, 1] and m["nodes"] == [0, 1] and m["ns"][(0, 1)] == 120.0
    c = contention(run)
    assert c["ratio"] == pytest.approx(0.6) and c["cores"] == 4
    assert [r["others"] for r in c["loaded"]] == [0, 1, 2, 3]
    assert c["loaded"][3]["bandwidth_ratio"] == pytest.approx(0.6)
    assert c["loaded"][3]["latency_ratio"] == pytest.approx(1.8)
    assert contention({"records": []}) is None and latency_matrix({"records": []}) is None


def test_cache_marks_prefer_the_detected_levels():
    """A rate-vs-working-set figure marks what the run's own curve shows (detected), else the
    planner's LLC probe, beside the fingerprint's reported sizes."""
    from hpceval.analysis.hierarchy import cache_marks
    marks = cache_marks(synthetic_run())
    detected = [(n, s) for n, s, d in marks if d]
    assert [n for n, _ in detected] == ["L1d (detected)", "L2 (detected)", "L3 (detected)"]
    for (_, size), cap in zip(detected, CAPS):
        assert cap <= size <= 2 * cap                  # the edge lands just above the capacity
    assert [(n, s) for n, s, d in marks if not d] == [
        ("L1d (reported)", 32 << 10), ("L2 (reported)", 512 << 10), ("L3 (reported)", 32 << 20)]
    probed = {"records": [], "fingerprint": fingerprint(),
              "settings": {"llc": {"detected": 16 << 20, "reported": 32 << 20}}}
    assert [m for m in cache_marks(probed) if m[2]] == [("LLC (probe)", 16 << 20, True)]
    assert all(not d for _, _, d in cache_marks({"records": [], "fingerprint": fingerprint()}))
