"""The memory benchmarks through `hpceval run`, then export, analysis and report end to end."""
import pytest

from helpers import FAST

from hpceval.analysis.hierarchy import contention, hierarchy

SMALL = FAST + ["--set", "mem-latency.sizes=4K,16K,64K,256K,1M,4M,8M",
                "--set", "mem-bandwidth.sizes=1K,4K,16K,64K,256K,1M,4M",
                "--set", "mem-bandwidth.modes=read,triad,memcpy",
                "--set", "mem-contention.bytes=1M", "--set", "mem-contention.latency-bytes=256K",
                "--set", "stream.n=100000", "--set", "stream.threads=max",
                "--set", "stream.bind=close,spread"]


@pytest.fixture(scope="module")
def memory_run(tmp_path_factory, bindir):
    from helpers import CLI
    cli = CLI(tmp_path_factory.mktemp("mem") / "r.sqlite")
    p = cli("run", "mem-latency", "mem-bandwidth", "mem-contention", "stream", *SMALL)
    return cli, p


def test_every_memory_benchmark_is_stored(memory_run):
    cli, p = memory_run
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    assert run["status"] == "ok"
    by = {}
    for r in run["records"]:
        by.setdefault(r["benchmark"], []).append(r)
    assert len(by["mem-latency"]) == 7 + 1          # the sweep, and the TLB-friendly flavour
    assert {(r["params"]["mode"], r["params"]["bytes"] > 0) for r in by["mem-bandwidth"]} == {
        (m, True) for m in ("read", "triad", "memcpy")}
    assert len(by["mem-bandwidth"]) == 21
    assert {r["params"]["bind"] for r in by["stream"]} == {"close", "spread"}
    c = contention(run)
    assert c["ratio"] is not None and [r["others"] for r in c["loaded"]] == list(range(c["cores"]))
    h = hierarchy(run)
    assert h and h["levels"][0]["latency_ns"] < h["levels"][-1]["latency_ns"]
    assert h["levels"][0]["bandwidth_gbs"] is not None


def test_report_has_the_memory_section(memory_run, tmp_path):
    cli, _ = memory_run
    out = tmp_path / "r.html"
    p = cli("report", "latest", "-o", str(out))
    assert p.returncode == 0, p.stderr
    html = out.read_text()
    for title in ("Memory bandwidth vs working set per access mode",
                  "Memory contention: one core under load, one core vs all",
                  "Detected memory hierarchy (as EV7 Table 2.1)",
                  "Contention: degradation of one core"):
        assert title in html
