"""Peaks, and promised against delivered (hpceval/analysis/peaks.py), on the machine card: the
derived peak (a bound: ISA x 2 pipes x nominal clock) or "unknown" with the reason on a VM; a
spec sheet's figures against the dense solve, the kernels, STREAM and the network; the machine
balance."""
import pytest

from hpceval.analysis.card import machine_card
from hpceval.analysis.peaks import SECTION

XEON = {"cpu_model": "Xeon @ 2.00GHz", "cores": 4, "cpu_isa": ["avx", "avx2", "avx512f", "fma", "sse2"],
        "nominal_mhz": 2000.0, "nominal_mhz_source": "the CPU model name"}
VM = {**XEON, "nominal_mhz": None, "nominal_mhz_source": "no nominal clock readable: (a virtual machine?)"}
SPEC = {"name": "sheet", "peak_gflops_per_node": 256.0, "cores_per_node": 4,
        "memory_bandwidth_gbs_per_node": 100.0, "network_latency_us": 1.0,
        "network_bandwidth_mbs": 10000.0}


def rec(bench, metric, v, unit, better="higher", **params):
    return {"benchmark": bench, "params": params, "metric": metric, "unit": unit,
            "statistic": "median", "better": better,
            "stats": {"n": 5, "min": v, "median": v, "mean": v, "max": v, "stddev": 0,
                      "ci_low": v, "ci_high": v}}


def dense(v, ranks, kind="real"):
    return rec("dense", "gflops", v, "GFlop/s", kind=kind, routine="pdgesv", n=4000, nb=64, P=1,
               Q=ranks, ranks=ranks)


def peaks(run):
    return {r["quantity"]: r for r in machine_card(run) if r["section"] == SECTION}


def test_derived_peak_is_a_bound_and_the_fraction_a_lower_bound():
    run = {"fingerprint": XEON, "records": [dense(80.0, 2), dense(100.0, 4)]}
    p = peaks(run)
    # AVX-512 FMA: 8 doubles x 2 flops x 2 pipes x 2.0 GHz = 64 GFlop/s a core
    assert p["Peak per core, derived (ISA x nominal clock)"]["value"] == pytest.approx(64.0)
    assert p["Peak per core, derived (ISA x nominal clock)"]["point"].startswith("at most")
    assert p["Peak per node, derived"]["value"] == pytest.approx(256.0)
    pct = p["Dense solve, % of derived peak"]
    assert pct["value"] == pytest.approx(100 * 100.0 / (64.0 * 4))
    assert "at least" in pct["point"]
    assert p["Vector unit (instruction set)"]["value"] == "AVX-512 with FMA"
    assert p["Dense solve, % of spec-sheet peak"]["value"] == "unknown"


def test_a_vm_says_unknown_and_why():
    p = peaks({"fingerprint": VM, "records": [dense(50.0, 2)]})
    for q in ("Peak per core, derived (ISA x nominal clock)", "Peak per node, derived",
              "Dense solve, % of derived peak"):
        assert p[q]["value"] == "unknown" and "virtual machine" in p[q]["point"]


def test_promised_against_delivered_with_a_spec_sheet():
    recs = [dense(100.0, 4), dense(60.0, 2, "complex"),
            rec("column", "mflops", 3200.0, "MFlop/s", nlon=64),
            rec("stream", "bandwidth", 80.0, "GB/s", kernel="triad", threads=4, array_bytes=1 << 30),
            rec("stream", "bandwidth", 30.0, "GB/s", kernel="triad", threads=1, array_bytes=1 << 30),
            rec("pingpong", "latency", 2.0, "us", "lower", bytes=8, ranks="0-1"),
            rec("pingpong", "bandwidth", 8000.0, "MB/s", bytes=1 << 20, ranks="0-1"),
            rec("pingpong", "bandwidth", 8000.0, "MB/s", bytes=4 << 20, ranks="0-1")]
    hosts = {"benchmark": "pingpong", "meta": {"hosts": ["n1", "n2"]}}
    run = {"fingerprint": VM, "records": recs, "launches": [hosts], "settings": {"spec": SPEC}}
    p = peaks(run)
    assert p["Peak per node, spec sheet"]["value"] == 256.0
    assert p["Dense solve, % of spec-sheet peak"]["value"] == pytest.approx(100 * 100 / 256)
    assert p["column MFlop/s, % of derived peak"]["value"] == "unknown"        # a VM's clock
    stream = p["Memory bandwidth (STREAM, all cores), % of spec"]
    assert stream["value"] == pytest.approx(80.0)
    assert p["MPI inter-node latency, promised / delivered"]["value"] == pytest.approx(50.0)
    assert p["MPI inter-node bandwidth, % of promised"]["value"] == pytest.approx(80.0)
    # bytes per flop: STREAM's 80 GB/s over the best dense solve on one node's 4 cores
    assert p["Machine balance, delivered (STREAM bytes per dense flop)"]["value"] == \
        pytest.approx(0.8)
    assert p["Machine balance, promised (spec sheet)"]["value"] == pytest.approx(100 / 256)


def test_without_measurements_or_sheet_the_rows_stay_empty():
    p = peaks({"fingerprint": XEON, "records": []})
    assert p["Dense solve, % of derived peak"]["value"] is None
    assert p["Peak per node, spec sheet"]["value"] is None
    assert p["Machine balance, promised (spec sheet)"]["value"] is None
