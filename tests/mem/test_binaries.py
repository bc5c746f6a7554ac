"""The memory binaries on their own: every mode at tiny sizes, byte counting, page kinds,
placement, bad input and failing checks (real processes, 1 rank as hpceval launches them)."""
import json
import subprocess

import pytest

from hpceval.analysis.hierarchy import contention
from hpceval.catalog.numa import SYS_NODE, numa_nodes
from hpceval.records import parse_record

QUICK = ["--budget", "0.03", "--min-reps", "3", "--max-reps", "10", "--warmup", "1"]
MODES = ("read", "write", "rmw", "memset", "memcpy", "copy", "triad", "write-nt", "copy-nt",
         "triad-nt")
WORDS = {"read": 1, "write": 1, "rmw": 2, "memset": 1, "memcpy": 2, "copy": 2, "triad": 3,
         "write-nt": 1, "copy-nt": 2, "triad-nt": 3}


def run(bindir, name, *args, env=None, timeout=120):
    p = subprocess.run([str(bindir / f"hpceval-{name}"), *args], capture_output=True, text=True,
                       timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    return p, recs


def results(recs):
    return [r for r in recs if r["type"] == "result"]


def test_bandwidth_every_mode_counts_its_bytes(bindir):
    p, recs = run(bindir, "mem-bandwidth", "--sizes", "1K,96K", "--modes", ",".join(MODES),
                  "--cpu", "0", *QUICK)
    assert p.returncode == 0, p.stderr
    assert recs[0]["type"] == "meta" and recs[0]["options"]["cpu"] == 0
    res = results(recs)
    assert {(r["params"]["mode"], r["requested_bytes"]) for r in res} == {
        (m, s) for m in MODES for s in (1024, 98304)}
    for r in res:
        m, ws = r["params"]["mode"], r["params"]["bytes"]
        assert r["check"] == "ok" and r["unit"] == "GB/s" and r["stats"]["min"] > 0
        assert ws <= r["requested_bytes"] and ws % 64 == 0
        # application bytes: arrays x 8 B per element, rmw counts its read and its write
        arrays = {"memcpy": 2, "copy": 2, "copy-nt": 2, "triad": 3, "triad-nt": 3}.get(m, 1)
        n = ws // (8 * arrays)
        assert r["bytes_counted_per_pass"] == 8 * WORDS[m] * n, m
        allocate = 0 if m in ("read", "rmw") or m.endswith("-nt") else 8 * n
        assert r["write_allocate_bytes_per_pass"] == allocate, m
        assert r["counting"]


def test_bandwidth_two_threads_and_page_kinds(bindir):
    env = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores", "PATH": "/usr/bin:/bin"}
    p, recs = run(bindir, "mem-bandwidth", "--sizes", "4M", "--modes", "triad", "--threads", "2",
                  "--pages", "base", *QUICK, env=env)
    assert p.returncode == 0, p.stderr
    [r] = results(recs)
    assert r["params"]["threads"] == 2 and r["params"]["pages"] == "base"
    assert len(recs[0]["options"]["thread_cpus"]) == 2
    p, recs = run(bindir, "mem-bandwidth", "--sizes", "64K", "--modes", "read", "--pages", "huge",
                  *QUICK)
    assert p.returncode == 0, p.stderr
    [r] = results(recs)
    warnings = [w["message"] for w in recs if w["type"] == "warning"]
    if r["params"]["pages"] == "base":      # no 2 MiB pages reserved: said, and base pages used
        assert any("huge pages unavailable" in w for w in warnings)
    else:
        assert r["params"]["pages"] == "huge-2M"


@pytest.mark.parametrize("mode", MODES)
def test_bandwidth_corruption_fails_the_check(bindir, mode):
    p, recs = run(bindir, "mem-bandwidth", "--sizes", "4K", "--modes", mode, *QUICK,
                  "--inject", "corrupt")
    assert p.returncode == 1
    [err] = [r for r in recs if r["type"] == "error"]
    assert "check failed" in err["message"] and mode in err["message"]


@pytest.mark.parametrize("name,args,message", [
    ("mem-bandwidth", ["--modes", "read,fly"], "option --modes: 'fly' is not a mode"),
    ("mem-bandwidth", ["--cpu", "999"], "CPU 999 does not exist"),
    ("mem-bandwidth", ["--node", "4000"], "NUMA node 4000 does not exist"),
    ("mem-bandwidth", ["--threads", "2", "--cpu", "0"], "pins a single thread"),
    ("mem-bandwidth", ["--sizes", "900G"], "exceed 80% of MemAvailable"),
    ("mem-bandwidth", ["--node", str(numa_nodes())], f"NUMA node {numa_nodes()} does not exist"),
    ("mem-latency", ["--cpu", "999"], "CPU 999 does not exist"),
    ("mem-latency", ["--node", str(numa_nodes())], f"NUMA node {numa_nodes()} does not exist"),
    ("mem-latency", ["--node", "4000"], "NUMA node 4000 does not exist"),
    ("mem-latency", ["--pages", "giant"], "option --pages"),
    ("mem-latency", ["--order", "backwards"], "option --order"),
    ("mem-contention", ["--stream-mode", "fly"], "'fly' is not a mode"),
    ("mem-contention", ["--bytes", "900G"], "exceed 80% of MemAvailable"),
])
def test_bad_input_is_refused_before_allocating(bindir, name, args, message):
    p, recs = run(bindir, name, *args, *QUICK)
    assert p.returncode == 2
    assert recs[-1]["type"] == "error" and message in recs[-1]["message"]
    assert [l for l in p.stderr.splitlines() if "error" in l] == [
        f"hpceval-{name}: error: {recs[-1]['message']}"]


def test_latency_orders_pages_and_placement(bindir):
    p, recs = run(bindir, "mem-latency", "--sizes", "4K,2M", "--order", "linear", "--pages", "thp",
                  "--cpu", "0", "--node", "0", *QUICK)
    assert p.returncode == 0, p.stderr
    lin = {r["params"]["bytes"]: r for r in results(recs)}
    for r in lin.values():
        assert r["params"]["order"] == "linear" and r["params"]["pages"] == "thp"
        assert r["params"]["cpu"] == 0 and r["params"]["node"] == 0
        assert r["memory_node"] in (0, -1) and r["pages_used"] in ("thp", "base")
    assert recs[0]["cpus"] == [0]
    assert any("one NUMA node" in r["message"] for r in recs if r["type"] == "warning")
    p, recs = run(bindir, "mem-latency", "--sizes", "2M", "--pages", "huge", *QUICK)
    assert p.returncode == 0, p.stderr
    [rnd] = results(recs)
    assert rnd["params"]["order"] == "random" and rnd["params"]["pages"] == "huge-2M"
    if rnd["pages_used"] == "base":
        assert any("huge pages unavailable" in r["message"] for r in recs if r["type"] == "warning")
    # prefetchers follow the linear chain: far faster than the random one at 2 MiB (beyond L2).
    # The fastest samples: another process only ever adds time (the medians' 2x failed once
    # at a load average of 7)
    assert lin[2 << 20]["stats"]["min"] < rnd["stats"]["min"] / 2


def test_contention_experiments(bindir):
    env = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores", "PATH": "/usr/bin:/bin"}
    p, recs = run(bindir, "mem-contention", "--bytes", "256K", "--latency-bytes", "64K",
                  "--threads", "2", *QUICK, env=env)
    assert p.returncode == 0, p.stderr
    res = results(recs)
    keys = sorted((r["params"]["experiment"], r["metric"], r["params"].get("others",
                   r["params"].get("cores"))) for r in res)
    assert keys == [("loaded", "bandwidth", 0), ("loaded", "bandwidth", 1),
                    ("loaded", "latency", 0), ("loaded", "latency", 1),
                    ("per-core", "bandwidth", 1), ("per-core", "bandwidth", 2)]
    assert all(r["check"] == "ok" and r["stats"]["min"] > 0 for r in res)
    loaded1 = next(r for r in res if r["params"].get("others") == 1 and r["metric"] == "bandwidth")
    assert loaded1["others_gbs"] > 0                      # the other core really streamed
    c = contention({"records": res})
    assert c["cores"] == 2 and c["ratio"] > 0 and len(c["loaded"]) == 2
    p, recs = run(bindir, "mem-contention", "--bytes", "64K", "--threads", "2",
                  "--experiments", "per-core", *QUICK, "--inject", "corrupt", env=env)
    assert p.returncode == 1 and "check failed" in recs[-1]["message"]


def test_contention_waits_for_every_thread_s_buffer(bindir):
    # Thread 0 held back 5 ms in each parallel region: the passes per sample came from its
    # buffer before it was prepared (up to 10^6 passes: CI's launch hung for its 78 s limit).
    env = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores", "PATH": "/usr/bin:/bin"}
    p, recs = run(bindir, "mem-contention", "--bytes", "4M", "--latency-bytes", "64K",
                  "--threads", "2", *QUICK, "--inject", "late-thread", env=env, timeout=30)
    assert p.returncode == 0, p.stderr
    res = results(recs)
    assert len(res) == 6 and all(r["check"] == "ok" for r in res)
    assert recs[-1]["type"] == "end" and recs[-1]["elapsed_s"] < 10


def test_stream_records_its_binding(bindir):
    env = {"OMP_PROC_BIND": "spread", "OMP_PLACES": "cores", "PATH": "/usr/bin:/bin"}
    p, recs = run(bindir, "stream", "--n", "100000", "--threads", "2", *QUICK, env=env)
    assert p.returncode == 0, p.stderr
    assert {r["params"]["bind"] for r in results(recs)} == {"spread"}


def _sys_distance(a, b):
    """The firmware's distance from node a to node b, as sysfs gives it (10 without a table)."""
    f = SYS_NODE / f"node{a}" / "distance"
    return int(f.read_text().split()[b]) if f.exists() else 10


@pytest.mark.parametrize("name,args", [
    ("mem-bandwidth", ["--modes", "read", "--sizes", "64K,4M"]),
    ("mem-latency", ["--sizes", "64K,4M"])])
def test_each_point_says_where_its_memory_lives(bindir, name, args):
    """Memory bound to the last home, measured from CPU 0: every record names the home its
    pages are on, the measuring CPU's home and the firmware's distance between them (on a
    one-home machine: home 0, distance 10)."""
    home = numa_nodes() - 1
    p, recs = run(bindir, name, *args, "--cpu", "0", "--node", str(home), *QUICK)
    assert p.returncode == 0, p.stderr
    res = results(recs)
    assert len(res) == 2
    for r in res:
        assert r["params"]["node"] == home and r["memory_node"] == home
        assert r["distance"] == _sys_distance(r["cpu_node"], home)
        if name == "mem-bandwidth":  # every page sampled on the bound home
            assert r["local_share"] == (1.0 if r["cpu_node"] == home else 0.0)
