"""hpceval twin (issue #46): a simulated platform calibrated from a stored run's records or a spec
sheet, run with --platform TWIN --nodes N. The simulation is deterministic, so a twin is held to
the records it was made from, not to a fresh real run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import CLI, FAST, single_line

# Odd small sizes too: their segments are steep where the real curve is noisy, and a steep
# segment is where SMPI's 16-byte envelope shows (test_smpi_transfers_sixteen_bytes_more)
SIZES = "1,3,7,8,16,1K,64K,1M"
TIGHT = ["--set", "budget=0.001", "--no-remeasure", "--llc", "reported"]
SWAP = ["--set", "p2p.modes=swap", "--set", "p2p.protocols=sendrecv", "--set", "p2p.sizes=8,1M"]


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> tuple:
    """A real 2-rank run on this machine: pingpong, eager, loggp and a kernel, tiny."""
    db = tmp_path_factory.mktemp("real") / "results.sqlite"
    cli = CLI(db)
    p = cli("run", "pingpong", "eager", "loggp", "column", "p2p", "--np", "2", *FAST,
            "--set", f"pingpong.sizes={SIZES}", "--set", "pingpong.refine=0", *SWAP,
            "--set", "eager.sizes=1K,64K", "--set", "eager.refine=0", "--set", "loggp.sizes=8,1K",
            "--set", "column.nlons=8", "--set", "column.ncols=16")
    assert p.returncode == 0, p.stderr
    return cli, cli.export("latest")[0]


def _median(run: dict, bench: str, metric: str, size: int) -> float:
    [rec] = [r for r in run["records"] if r["benchmark"] == bench and r["metric"] == metric
             and r["params"].get("bytes") == size and r["params"].get("mode") != "stream"]
    return rec["stats"]["median"]


def test_twin_reproduces_its_run(real, sim, tmp_path: Path) -> None:
    cli, run = real
    twin = tmp_path / "twin.xml"
    p = cli("twin", "latest", "-o", str(twin))
    assert p.returncode == 0, p.stderr
    text = twin.read_text()
    assert text.splitlines()[2].startswith("<!-- hpceval-twin 1:")
    named = [f"run {run['uuid']} pingpong latency bytes=8 ", "pingpong latency bytes=1048576",
             "eager late_receive", "column mflops"]
    # LogGP's L is a cross-check, named when measured: RTT/2 - o_s - o_r is clipped at 0 when
    # the overheads overlap the transfer (seen under make test's load), and a 0 is not a value
    [L] = [r["stats"]["median"] for r in run["records"] if r["metric"] == "L"]
    for name in named + (["loggp L bytes=8"] if L > 0 else []):
        assert name in text, name
    assert ("loggp L" in text) == (L > 0), L
    # column: a one-rank launch, which SimGrid's Open MPI selection cannot run (session.py)
    p = sim("run", "pingpong", "column", "p2p", "--platform", str(twin), "--nodes", "1",
            "--ppn", "2", "--set", f"pingpong.sizes={SIZES}", "--set", "pingpong.refine=0", *SWAP,
            "--set", "column.nlons=8", "--set", "column.ncols=16", *TIGHT)
    assert p.returncode == 0, p.stderr
    simulated = sim.export("latest")[0]
    assert {l["status"] for l in simulated["launches"]} == {"ok"}
    # The twin passes through every point it was made from (its segments end at them); 1 B,
    # the first segment's lower end, is on that segment's line (a 1 B point above 3 B's, a
    # time slice under load, is noise the line does not follow), within SMPI's own few ns
    from hpceval.analysis import calibrate as cal
    segs = cal.segments(cal.pingpong_curves(run)["intra"])
    for size in (1, 3, 7, 8, 16, 1 << 10, 1 << 16, 1 << 20):
        got, want = (_median(r, "pingpong", "latency", size) for r in (simulated, run))
        if size == 1:
            want = cal.at(segs, 1)[1] + cal.wire(1) * cal.at(segs, 1)[2]
        assert abs(got / want - 1) < (0.10 if size == 1 else 0.03), (size, got, want)
    got, want = (_median(r, "pingpong", "bandwidth", 1 << 20) for r in (simulated, run))
    assert abs(got / want - 1) < 0.03, (got, want)
    # a both-ways exchange costs what the run's swap did (its overhead on MPI_Isend), never
    # less than one way: a swap measured faster than the ping-pong (a time slice under load)
    # adds nothing
    for size in (8, 1 << 20):
        got, swap = (_median(r, "p2p", "latency", size) for r in (simulated, run))
        want = max(swap, _median(simulated, "pingpong", "latency", size))
        assert abs(got / want - 1) < 0.03, (size, got, swap, want)
    assert f"run {run['uuid']} p2p latency bytes=8 mode=swap" in text
    assert simulated["fingerprint"]["simulated"]["twin"]["run"] == run["uuid"]
    # the collectives' algorithms are the measured MPI's, and the simulation ran them
    want = {"openmpi": "ompi", "mpich": "mpich"}[run["fingerprint"]["mpi"]["flavour"]]
    from hpceval.simulate.twin import read_twin
    assert read_twin(text, "twin").config["smpi/coll-selector"] == want
    assert f"(smpi/coll-selector) = {want}: run {run['uuid']} ran " in text
    cfg = simulated["fingerprint"]["simulated"]["cfg"]
    assert f"--cfg=smpi/coll-selector:{want}" in cfg
    # a proxy's short computation bursts are charged: the twin's threshold, after the default
    assert cfg.index("--cfg=smpi/cpu-threshold:1e-7") > cfg.index("--cfg=smpi/cpu-threshold:1e-5")
    shown = sim("show", "latest", "--all").stdout
    assert f"twin of run {run['uuid']}" in shown.replace("\n", "")


def test_a_twin_of_several_runs_takes_each_point_s_median(real, tmp_path: Path) -> None:
    """Two runs of this machine (a second ping-pong beside the first run): each ping-pong point
    of the twin is the run's with the lower median (the lower of the middle two), named in the
    file; eager and column come from the one run that has them."""
    import shutil
    cli = CLI(shutil.copy(real[0].db, tmp_path / "two.sqlite"))
    p = cli("run", "pingpong", "--np", "2", *FAST, "--set", f"pingpong.sizes={SIZES}",
            "--set", "pingpong.refine=0", *TIGHT)
    assert p.returncode == 0, p.stderr
    first, second = cli.export("1", "2")
    p = cli("twin", "1", "2", "-o", str(tmp_path / "twin.xml"))
    assert p.returncode == 0, p.stderr
    text = (tmp_path / "twin.xml").read_text()
    for size in (8, 1 << 20):
        lower = min((first, second), key=lambda r: _median(r, "pingpong", "latency", size))
        assert f"run {lower['uuid']} pingpong latency bytes={size} " in text, size
    assert f"run {first['uuid']} eager late_receive" in text
    assert f"runs {first['uuid']}, {second['uuid']} on machine" in text


def test_smpi_transfers_sixteen_bytes_more(sim) -> None:
    """What hpceval/analysis/calibrate.py's `wire` assumes of SimGrid: on an ideal 1 us, 100 MB/s
    link an n-byte message takes 1 us + (n + 16) B / 100 MB/s (a SimGrid that changes it fails
    here, not in a twin's small sizes)."""
    p = sim("run", "pingpong", "--simulate", "nodes=2,ppn=1,latency=1us,bandwidth=100MBps",
            "--set", "sizes=1,100,1000", "--set", "refine=0", *TIGHT)
    assert p.returncode == 0, p.stderr
    run = sim.export("latest")[0]
    for n in (1, 100, 1000):
        want = 1.0 + (n + 16) / 100.0
        assert abs(_median(run, "pingpong", "latency", n) / want - 1) < 0.01, n


def test_an_exchange_is_charged_its_overhead(sim, tmp_path: Path) -> None:
    """Planted: a sheet's 2 us, 1,000 MB/s links and smpi/ois of 3 us + 1 ns a byte, as
    hpceval/analysis/calibrate.py's `exchange` writes it: a 2-node swap (MPI_Sendrecv) takes
    the ping-pong's one way, its bytes 5% longer (SimGrid's cross-traffic: calibrate.py's
    CROSSTRAFFIC), plus 3 us + n ns; the ping-pong (MPI_Send) none of it."""
    from hpceval.simulate.twin import read_twin, twin_xml
    sheet, twin = tmp_path / "sheet.toml", tmp_path / "twin.xml"
    sheet.write_text("nodes = 2\ncores_per_node = 1\npeak_gflops_per_node = 10\n"
                     "network_latency_us = 2\nnetwork_bandwidth_mbs = 1000\n")
    assert sim("twin", "--spec", str(sheet), "-o", str(twin)).returncode == 0
    t = read_twin(twin.read_text(), "twin")
    t.config["smpi/ois"] = "0:3e-6:1e-9"
    twin.write_text(twin_xml(t))
    p = sim("run", "pingpong", "p2p", "--platform", str(twin), "--nodes", "2", "--ppn", "1",
            "--set", "pingpong.sizes=8,1M", "--set", "pingpong.refine=0", *SWAP,
            "--set", "p2p.patterns=0-k", "--set", "p2p.nranks=2", *TIGHT)
    assert p.returncode == 0, p.stderr
    run = sim.export("latest")[0]
    for n in (8, 1 << 20):
        one_way = 2.0 + (n + 16) / 1000.0
        assert _median(run, "pingpong", "latency", n) == pytest.approx(one_way, rel=0.01), n
        swap = _median(run, "p2p", "latency", n)
        assert swap == pytest.approx(2.0 + 1.05 * (n + 16) / 1000.0 + 3.0 + n * 1e-3,
                                     rel=0.01), n


SHEET = """name = "proposal"
nodes = 64
cores_per_node = 2
peak_gflops_per_node = 80
network_latency_us = 1.2
network_bandwidth_mbs = 12500
topology = "fat-tree"
topology_shape = "16:8"
"""


def test_spec_twin_runs_64_ranks(sim, tmp_path: Path) -> None:
    sheet, twin = tmp_path / "sheet.toml", tmp_path / "twin.xml"
    sheet.write_text(SHEET)
    p = sim("twin", "--spec", str(sheet), "-o", str(twin))
    assert p.returncode == 0, p.stderr
    assert "spec sheet" in twin.read_text() and 'topology="FAT_TREE"' in twin.read_text()
    # the sheet's leaves of 16 nodes with 8 up-links (2:1 tapered), 4 of them at 64 nodes
    assert 'topo_parameters="2;16,4;1,8;1,1"' in twin.read_text()
    p = sim("run", "pingpong", "collectives", "--platform", str(twin), "--nodes", "32",
            "--ppn", "2", "--set", "pingpong.sizes=8", "--set", "pingpong.refine=0",
            "--set", "collectives.sizes=8", "--set", "collectives.ops=allreduce,barrier",
            "--set", "collectives.nranks=64", *TIGHT)
    assert p.returncode == 0, p.stderr
    run = sim.export("latest")[0]
    assert run["fingerprint"]["simulated"]["nodes"] == 32
    assert 'topo_parameters="2;16,2;1,8;1,1"' in run["fingerprint"]["simulated"]["platform_xml"]
    assert {r["benchmark"] for r in run["records"]} == {"pingpong", "collectives"}
    assert "twin of spec sheet" in sim("show", "latest").stdout.replace("\n", "")


@pytest.mark.parametrize("sheet, says", [
    (SHEET.replace("nodes = 64\n", ""), "a twin needs nodes"),
    (SHEET.replace("1.2", "-1"), "network_latency_us = -1 us is absurd"),
    (SHEET.replace('"fat-tree"', '"ring"'), "topology = 'ring'"),
    (SHEET.replace('"16:8"', '"3x3"'), "shape=3x3: a fat-tree takes K:U"),
])
def test_bad_sheet(sim, tmp_path: Path, sheet: str, says: str) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(sheet)
    p = sim("twin", "--spec", str(path))
    assert p.returncode == 2 and says in single_line(p.stderr), p.stderr


def test_nothing_to_calibrate(sim) -> None:
    p = sim("run", "column", "--set", "column.nlons=8", "--set", "column.ncols=16",
            "--simulate", "nodes=1", *TIGHT)
    assert p.returncode == 0, p.stderr
    p = sim("twin", "latest")
    assert p.returncode == 2, p.stderr
    assert "'hpceval run pingpong'" in single_line(p.stderr)


def test_nodes_zero(sim, tmp_path: Path) -> None:
    sheet, twin = tmp_path / "sheet.toml", tmp_path / "twin.xml"
    sheet.write_text(SHEET)
    assert sim("twin", "--spec", str(sheet), "-o", str(twin)).returncode == 0
    p = sim("run", "pingpong", "--platform", str(twin), "--nodes", "0")
    assert p.returncode == 2 and "--nodes" in single_line(p.stderr), p.stderr
    # the sheet's leaves hold 16 nodes: 20 is not a whole number of them
    p = sim("run", "pingpong", "--platform", str(twin), "--nodes", "20")
    assert p.returncode == 2, p.stderr
    assert "20 nodes are not a whole number of the fat-tree's units of 16" in single_line(
        p.stderr)
    assert not sim.db.exists()
    assert not sim.db.exists()
