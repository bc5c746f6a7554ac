"""`hpceval run` end to end: real binaries, real MPI ranks, a private database."""
import os
import subprocess
import sys

import pytest

from helpers import FAST, ROOT, one_line_error

# No adaptive refinement (tests/comm/test_switches.py covers it): on a loaded machine it adds
# sizes, and these tests count the points.
SMALL = FAST + ["--set", "pingpong.refine=0", "--set", "pingpong.sizes=0,8,1K,64K", "--set", "mem-latency.sizes=4K,64K,1M",
                "--set", "stream.n=200000"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory, bindir):
    from helpers import CLI
    cli = CLI(tmp_path_factory.mktemp("run") / "r.sqlite")
    p = cli("run", "pingpong", "mem-latency", "stream", *SMALL, "--tag", "ci")
    return cli, p


def test_run_stores_every_benchmark(small_run):
    cli, p = small_run
    assert p.returncode == 0, p.stderr
    assert "run id: 1" in p.stdout
    assert "Ping-pong latency, 8 B" in p.stdout
    [run] = cli.export()
    assert run["status"] == "ok" and run["tags"] == ["ci"] and run["suite"] == "pingpong+mem-latency+stream"
    recs = run["records"]
    lat = {r["params"]["bytes"]: r for r in recs if r["benchmark"] == "pingpong" and r["metric"] == "latency"}
    bw = {r["params"]["bytes"] for r in recs if r["benchmark"] == "pingpong" and r["metric"] == "bandwidth"}
    assert sorted(lat) == [0, 8, 1024, 65536] and sorted(bw) == [8, 1024, 65536]
    # microseconds: the fastest sample (beside the other worker's ranks, a median waits for
    # time slices; test_eager's late receive had a 6.3 ms median so)
    assert 0 < lat[8]["stats"]["min"] < 1000
    mem = sorted(r["params"]["bytes"] for r in recs if r["benchmark"] == "mem-latency"
                 and r["params"]["order"] == "random")
    assert mem == [4096, 65536, 1 << 20]
    [window] = [r for r in recs if r["benchmark"] == "mem-latency" and r["params"]["order"] == "window"]
    assert window["params"]["bytes"] == 1 << 20 and window["params"]["window"] == 256 << 10
    stream = {(r["params"]["kernel"], r["params"]["threads"]) for r in recs if r["benchmark"] == "stream"}
    assert stream == {(k, t) for k in ("copy", "scale", "add", "triad") for t in (1, 2)}
    for r in recs:
        s = r["stats"]
        assert s["n"] >= 1 and s["min"] <= s["median"] <= s["max"] and s["ci_low"] <= s["ci_high"]


def test_run_records_how_it_ran(small_run):
    cli, _ = small_run
    [run] = cli.export()
    fp = run["fingerprint"]
    assert fp["cores"] >= 1 and fp["caches"] and fp["mpi"]["flavour"] in ("openmpi", "mpich", "slurm")
    assert fp["compiler"].get("cflags")
    assert len(run["launches"]) == 5          # mem-latency: the sweep and the TLB-friendly point
    for l in run["launches"]:
        assert l["status"] == "ok" and l["meta"]["mpi_library"]
        assert "hpceval-" in l["command"]
        if fp["mpi"]["flavour"] == "openmpi" and os.geteuid() == 0:
            assert "--allow-run-as-root" in l["command"]
    assert run["launches"][0]["meta"]["nranks"] == 2


def test_show_runs_export_report(small_run, tmp_path):
    cli, _ = small_run
    p = cli("runs")
    assert p.returncode == 0 and " ok " in p.stdout and "tags=ci" in p.stdout
    p = cli("show", "1", "--all")
    assert p.returncode == 0 and "fingerprint" in p.stdout and "Ping-pong latency" in p.stdout
    p = cli("show", "1", env={"COLUMNS": "100"})      # the summary first, the listing behind --all
    lines = p.stdout.splitlines()
    assert p.returncode == 0 and any(l.startswith("summary:") for l in lines[:3])
    assert "--all" in lines[-1]
    assert "MPI intra-node" in p.stdout and "8 B messages" in p.stdout and "warning" in p.stdout
    assert max(map(len, lines)) <= 100 and len(lines) < 60
    p = cli("show", "latest", "--json")
    assert p.returncode == 0 and '"records"' in p.stdout
    p = cli("show", "latest", "--perf")          # the ReFrame checks' lines (packaging/reframe)
    lines = p.stdout.splitlines()
    assert p.returncode == 0 and lines[0] == "hpceval-run 1 ok"
    assert any(l.startswith("hpceval-perf ping_pong_latency_8_b ") and l.endswith(" us lower")
               for l in lines)
    assert all(l.startswith("hpceval-perf ") and len(l.split()) == 5 for l in lines[1:])
    p = cli("export", "1", "--format", "csv")
    lines = p.stdout.strip().splitlines()
    assert lines[0].startswith("run_id,run_uuid,started") and len(lines) == 1 + 4 + 3 + 3 + 1 + 8
    out = tmp_path / "r.html"
    p = cli("report", "-o", str(out))
    assert p.returncode == 0, p.stderr
    html = out.read_text()
    assert "<svg" in html and "ping-pong" in html.lower()


def test_two_runs_write_one_database_at_once(tmp_path, bindir):
    from helpers import CLI
    cli = CLI(tmp_path / "r.sqlite")
    args = ["run", "pingpong", *FAST, "--set", "sizes=8,1K", "--np", "2"]
    env = {**os.environ, "HPCEVAL_DB": str(cli.db)}
    procs = [subprocess.Popen([sys.executable, "-m", "hpceval", *args, "--tag", f"p{i}"], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    runs = cli.export()
    assert sorted(r["tags"][0] for r in runs) == ["p0", "p1"]
    assert all(len(r["records"]) == 4 and r["status"] == "ok" for r in runs)


@pytest.mark.parametrize("args, message", [
    (["--nodes", "3", "--hosts", "localhost,127.0.0.1"], "--nodes 3: only 2 host(s) given"),
    (["--ppn", "0", "--hosts", "localhost"], "--ppn 0: need at least 1 rank per node"),
    (["--hosts", "no-such-node.invalid", "--ppn", "2"], "host no-such-node.invalid does not resolve"),
    (["--hosts", "localhost", "--ppn", "1"], "pingpong needs at least 2 ranks"),
])
def test_bad_placement_is_one_line_and_runs_nothing(tmp_path, args, message):
    from helpers import CLI
    cli = CLI(tmp_path / "p.sqlite")
    p = cli("run", "pingpong", *FAST, *args)
    assert p.returncode == 2 and message in one_line_error(p.stderr), p.stderr
    assert not (tmp_path / "p.sqlite").exists() or cli.export() == []


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path):
    from helpers import CLI
    cli = CLI(tmp_path / "d.sqlite")
    p = cli("run", "comm", "--dry-run", "--nodes", "64", "--ppn", "16")
    assert p.returncode == 0, p.stderr
    assert "distance np=1024" in p.stdout and "launches, estimated" in p.stdout
    assert not (tmp_path / "d.sqlite").exists()
    p = cli("run", "comm", "--dry-run", "--np", "10000")      # on this one machine: no room
    assert p.returncode == 2 and "memory is available" in one_line_error(p.stderr)
