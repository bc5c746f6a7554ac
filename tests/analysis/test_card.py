from hpceval.analysis.card import CARD_ROWS, NOT_MEASURED, CardRow, Cell, machine_card, register_card_row

CACHES = [{"level": 1, "type": "Data", "size_bytes": 32 << 10}, {"level": 1, "type": "Instruction", "size_bytes": 32 << 10},
          {"level": 2, "type": "Unified", "size_bytes": 512 << 10}, {"level": 3, "type": "Unified", "size_bytes": 32 << 20}]


def rec(bench, metric, v, better="lower", unit="ns", **params):
    return {"benchmark": bench, "params": params, "metric": metric, "unit": unit, "statistic": "median",
            "better": better, "stats": {"n": 5, "min": v, "median": v, "mean": v, "max": v, "stddev": 0,
                                          "ci_low": v, "ci_high": v}}


def card(run):
    return {(r["section"], r["quantity"]): r for r in machine_card(run)}


def test_fills_what_is_measured_and_says_not_measured_for_the_rest():
    mem = [rec("mem-latency", "latency", v, bytes=b, stride=64)
           for b, v in ((4 << 10, 1.0), (16 << 10, 1.1), (128 << 10, 4.0), (4 << 20, 15.0), (256 << 20, 90.0))]
    pp = [rec("pingpong", "latency", 0.2, unit="us", bytes=8, ranks="0-1"),
          rec("pingpong", "bandwidth", 9000.0, "higher", "MB/s", bytes=1 << 20, ranks="0-1"),
          rec("pingpong", "bandwidth", 7000.0, "higher", "MB/s", bytes=4 << 20, ranks="0-1")]
    other = [rec("collectives", "latency", v, unit="us", op="barrier", bytes=0, nranks=n) for n, v in ((2, 1.0), (4, 2.5))]
    other += [rec("collectives", "latency", 0.5, unit="us", op="bcast", bytes=8, nranks=4),
              rec("column", "mflops", 900.0, "higher", "MFlop/s", nlon=8),
              rec("column", "mflops", 1200.0, "higher", "MFlop/s", nlon=64)]
    run = {"fingerprint": {"cpu_model": "X @ 2.40GHz", "cores": 8, "caches": CACHES},
           "launches": [{"benchmark": "pingpong", "meta": {"hosts": ["n1", "n1"]}}], "records": mem + pp + other}
    c = card(run)
    assert c[("System", "Clock")]["value"] == 2400.0
    assert c[("System", "L2 cache")]["value"] == "512 KiB"
    assert c[("Memory latency", "L1")]["value"] == 1.1          # largest set <= half of L1
    assert c[("Memory latency", "L2")]["value"] == 4.0
    assert c[("Memory latency", "L3")]["value"] == 15.0
    assert c[("Memory latency", "Main memory, fully random (TLB misses included)")]["value"] == 90.0
    assert c[("MPI intra-node", "Latency")]["value"] == 0.2
    bw = c[("MPI intra-node", "Bandwidth")]                      # lower median of the plateau
    assert bw["value"] == 7000.0 and bw["point"].startswith("median over the plateau, 1 MiB – 4 MiB")
    assert c[("Collectives", "Barrier")]["value"] == 2.5 and "4 ranks" in c[("Collectives", "Barrier")]["point"]
    assert c[("Kernels", "Column physics")]["value"] == 1200.0 and c[("Kernels", "Column physics")]["unit"] == "MFlop/s"
    for key in (("MPI inter-node", "Latency"), ("Kernels", "Shallow water model (serial)"), ("Memory bandwidth", "L1")):
        assert not c[key]["measured"] and c[key]["missing"] == NOT_MEASURED
    run["launches"][0]["meta"]["hosts"] = ["n1", "n2"]            # the pair spans two nodes
    c = card(run)
    assert c[("MPI inter-node", "Latency")]["value"] == 0.2 and not c[("MPI intra-node", "Latency")]["measured"]


def test_empty_run_and_registered_rows():
    spec = register_card_row(CardRow("Kernels", "Test kernel", "MFlop/s", lambda run: Cell(42.0, "T42")))
    try:
        rows = machine_card({})
    finally:
        CARD_ROWS.remove(spec)
    assert all(not r["measured"] for r in rows if r["quantity"] != "Test kernel")
    [k] = [r for r in rows if r["quantity"] == "Test kernel"]
    assert k["value"] == 42.0 and k["point"] == "T42" and k["section"] == "Kernels"


def test_application_rate_is_taken_on_the_largest_grid():
    def baro(v, nx, ny, P, Q, halo="pack"):
        return rec("barotropic", "sim_days_per_day", v, "higher", "days/day", nx=nx, ny=ny, P=P,
                   Q=Q, halo=halo, sum="allreduce")
    # the small grid is faster, but rates of different problem sizes do not compare
    run = {"fingerprint": {}, "records": [baro(9e5, 96, 64, 1, 2), baro(3e4, 320, 384, 2, 1),
                                          baro(4e4, 320, 384, 1, 2, "datatype")]}
    cell = card(run)[("Application rates", "Ocean barotropic solver (POP-like)")]
    assert cell["value"] == 4e4 and "320x384" in cell["point"] and "datatype" in cell["point"]
    empty = card({"fingerprint": {}, "records": []})[
        ("Application rates", "Ocean barotropic solver (POP-like)")]
    assert not empty["measured"] and empty["missing"] == NOT_MEASURED


def test_bandwidth_is_the_plateau_median_not_a_spike():
    sizes = [(1 << k) for k in range(10, 23)]
    pp = [rec("pingpong", "bandwidth", 16876.0 if b == 128 << 10 else 8000.0 + b / 4096, "higher",
              "MB/s", bytes=b, ranks="0-1") for b in sizes]
    run = {"fingerprint": {"cores": 2}, "records": pp,
           "launches": [{"benchmark": "pingpong", "meta": {"hosts": ["n1", "n1"]}}]}
    v = card(run)[("MPI intra-node", "Bandwidth")]["value"]
    assert 8000 < v < 9100                                   # not the 16,876 spike at 128 KiB


def test_barrier_prefers_a_count_that_fits_the_cores_and_flags_one_that_does_not():
    bar = [rec("collectives", "latency", v, unit="us", op="barrier", bytes=0, nranks=n)
           for n, v in ((2, 1.0), (4, 25.0))]
    launches = [{"benchmark": "collectives", "meta": {"nranks": n, "hosts": ["a"] * n}} for n in (2, 4)]
    run = {"fingerprint": {"cores": 2}, "records": bar, "launches": launches}
    row = card(run)[("Collectives", "Barrier")]
    assert row["value"] == 1.0 and row["warning"] == ""
    run["records"] = bar[1:]
    row = card(run)[("Collectives", "Barrier")]
    assert row["value"] == 25.0 and row["warning"] == "oversubscribed: 4 ranks on 2 cores"


def test_memory_rows_follow_the_detected_caches_when_the_reported_ones_disagree():
    # A VM reports its host's 480 MiB L3; the curve shows 48 KiB, 2 MiB and 16 MiB. The "L3"
    # row must come from inside 16 MiB, main memory from beyond it, not from 192 MiB.
    vm = [{"level": 1, "type": "Data", "size_bytes": 48 << 10},
          {"level": 2, "type": "Unified", "size_bytes": 2 << 20},
          {"level": 3, "type": "Unified", "size_bytes": 480 << 20}]
    sizes = [1 << k for k in range(12, 29)] + [3 << k for k in range(11, 27)]
    plateaus = ((48 << 10, 1.4), (2 << 20, 4.5), (16 << 20, 38.0), (1 << 40, 165.0))
    mem = [rec("mem-latency", "latency", next(v for edge, v in plateaus if b <= edge),
               bytes=b, order="random") for b in sorted(sizes)]
    c = card({"fingerprint": {"cores": 2, "caches": vm}, "launches": [], "records": mem})
    assert c[("Memory latency", "L3")]["value"] == 38.0
    assert c[("Memory latency", "Main memory, fully random (TLB misses included)")]["value"] == 165.0


def test_intra_and_inter_node_rows_from_one_run_that_spans_nodes():
    def p2p(metric, v, mode, ranks, hosts, size, better="lower", unit="us"):
        r = rec("p2p", metric, v, better, unit, bytes=size, mode=mode, protocol="send",
                pattern="0-1" if ranks == "0-1" else "0-k", ranks=ranks)
        r["extra"] = {"where": {"nodes": ["n1", "n2"], "placement": "real", "pair_hosts": hosts}}
        return r
    same, across = ["n1", "n1"], ["n1", "n2"]
    recs = [p2p("latency", 0.3, "pingpong", "0-1", same, 8), p2p("latency", 0.5, "swap", "0-1", same, 8),
            p2p("latency", 30.0, "pingpong", "0-2", across, 8), p2p("latency", 35.0, "swap", "0-2", across, 8),
            p2p("latency", 20.0, "pingpong", "0-2", across, 1000),
            p2p("bandwidth", 200.0, "stream", "0-2", across, 1 << 20, "higher", "MB/s"),
            p2p("bandwidth", 300.0, "bistream", "0-2", across, 1 << 20, "higher", "MB/s"),
            p2p("bandwidth", 5000.0, "bistream", "0-1", same, 1 << 20, "higher", "MB/s")]
    barrier = rec("collectives", "latency", 40.0, unit="us", op="barrier", bytes=0, nranks=4)
    barrier["where"] = {"nodes": ["n1", "n2"], "placement": "real"}
    c = card({"fingerprint": {}, "launches": [], "records": recs + [barrier]})
    values = {k: c[k]["value"] for k in c if k[0].startswith("MPI")}
    p2p_rows = {("MPI intra-node", "Latency"): 0.3,
                ("MPI intra-node", "Latency, bi-directional"): 0.5,
                ("MPI intra-node", "Bandwidth"): None,
                ("MPI intra-node", "Bandwidth, bi-directional"): 5000.0,
                ("MPI inter-node", "Latency"): 30.0,       # 8 B, not the faster 1000 B
                ("MPI inter-node", "Latency, bi-directional"): 35.0,
                ("MPI inter-node", "Bandwidth"): 200.0,
                ("MPI inter-node", "Bandwidth, bi-directional"): 300.0}
    assert {k: values[k] for k in p2p_rows} == p2p_rows
    # every other benchmark's MPI row (eager, msgrate, rma, ... each registers its own in its
    # views) has each side and is not measured by p2p records
    others = {k for k in values if k not in p2p_rows}
    assert others and {(s, r) for _, r in others for s in ("MPI intra-node", "MPI inter-node")} \
        == others
    assert all(values[k] is None for k in others)
    assert c[("Collectives", "Barrier across nodes")]["value"] == 40.0
    barrier["where"]["nodes"] = ["n1"]
    assert not card({"fingerprint": {}, "records": [barrier]})[("Collectives", "Barrier across nodes")]["measured"]


def test_what_the_quick_suite_measures_is_on_the_card():
    """A VM reports its host's 480 MiB LLC; the probe found 16 MiB and STREAM's arrays were
    sized by it: the all-cores row is measured. The clock comes from the fingerprint."""
    caches = CACHES[:3] + [{"level": 3, "type": "Unified", "size_bytes": 480 << 20}]
    triad = [rec("stream", "bandwidth", v, "higher", "GB/s", kernel="triad", threads=t,
                 array_bytes=64 << 20) for t, v in ((1, 14.5), (2, 28.0))]
    run = {"fingerprint": {"cpu_model": "Xeon", "cores": 2, "caches": caches, "max_mhz": 2600.0},
           "settings": {"llc": {"used": 16 << 20, "source": "probe"}}, "launches": [],
           "records": triad}
    c = card(run)
    assert c[("System", "Clock")]["value"] == 2600.0
    assert c[("Memory bandwidth", "Main memory, all cores (STREAM)")]["value"] == 28.0
    del run["settings"]                 # sized by the reported 480 MiB: they sat in the cache
    assert not card(run)[("Memory bandwidth", "Main memory, all cores (STREAM)")]["measured"]
