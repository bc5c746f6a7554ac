"""A simulated run is a run like any other, marked simulated everywhere: fingerprint (with the
platform file), show, compare (never compared with a real machine's figures), the report."""
import json

from helpers import FAST, one_line_error

DESC = "nodes=2,ppn=1,latency=2us,bandwidth=5GBps"


def _run(sim, *extra):
    p = sim("run", "pingpong", "--simulate", DESC, "--set", "sizes=8,64K,1M", *FAST, *extra)
    assert p.returncode == 0, (p.stdout, p.stderr)
    return p


def test_simulated_run_is_marked(sim, bindir, tmp_path):
    p = _run(sim)
    assert "(simulated)" in p.stdout
    run = sim.export("latest")[0]
    fp = run["fingerprint"]
    assert fp["simulated"]["description"]["latency"] == 2e-6
    assert "<cluster" in fp["simulated"]["platform_xml"]
    assert fp["mpi"]["flavour"] == "smpi"
    from hpceval.simulate.mark import record_simulated
    assert all(record_simulated(r) for r in run["records"])
    show = sim("show", "latest")
    assert show.returncode == 0 and "SIMULATED (SimGrid SMPI) platform flat-2x1" in show.stdout
    assert show.stdout.count("(simulated)") >= 2
    # A real run beside it: the figures stand side by side, never judged.
    real = sim("run", "pingpong", "--np", "2", "--set", "sizes=8,64K,1M", *FAST,
               env={"HPCEVAL_BINDIR": str(bindir)})
    assert real.returncode == 0, real.stderr
    cmp = sim("compare", "1", "2", "--all", "--json")
    assert cmp.returncode == 0, cmp.stderr
    rows = json.loads(cmp.stdout)["rows"]
    assert rows and all(r["verdicts"][1] == "not comparable" for r in rows)
    text = sim("compare", "1", "2").stdout
    assert "#1 (simulated)" in text and "is simulated (platform flat-2x1" in text
    # its ratios are the simulated platform's error against the real run, never a verdict
    assert all(r["ratios"][1] for r in rows)
    assert "Simulated against real (#2 against #1), " in " ".join(text.split())
    out = tmp_path / "r.html"
    rep = sim("report", "1", "2", "-o", str(out))
    assert rep.returncode == 0, rep.stderr
    html = out.read_text()
    assert "SIMULATED (SimGrid SMPI) platform" in html and html.count("(simulated)") > 5


def test_platform_file_and_allocation(sim, tmp_path):
    _run(sim)
    plat = next((sim.data / "hpceval" / "simulated").glob("flat-2x1-*/platform.xml"))
    p = sim("run", "pingpong", "--platform", str(plat), "--ppn", "1", "--set", "sizes=8",
            *FAST)
    assert p.returncode == 0, p.stderr
    runs = sim.export()
    a, b = (r["records"][0]["stats"]["median"] for r in runs)
    # A platform file runs under SMPI's own calibrated model (latency factors > 1), the
    # description under the ideal one (model=ideal): the same links, a higher latency.
    assert abs(a - 2.0) < 0.05 and b > 1.5 * a
    assert runs[1]["fingerprint"]["simulated"]["source"] == str(plat)


def test_simulated_allocation(tmp_path, monkeypatch):
    from hpceval.simulate import session
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    plat = session.platform_from_args("nodes=8,ppn=4,memory=64GiB,topology=torus", None,
                                      None, None)
    where = session._write(plat)
    monkeypatch.setenv(session.ENV, str(where))
    alloc = session.simulated_allocation()
    assert alloc["nodes"] == 8 and alloc["ppn"] == 4 and alloc["cores_per_node"] == 4
    assert alloc["memory_bytes"] == 64 << 30
    from hpceval.runner import plan_context
    from hpceval.runner.placement import Placement
    ctx = plan_context(None, Placement(*session.placement(
        json.loads((where / "simulation.json").read_text()), None)))
    assert (ctx.nodes, ctx.ppn, ctx.nranks, ctx.cores) == (8, 4, 32, 4)


def test_history_never_mixes_simulated_and_real():
    from hpceval.analysis.history import machine_runs
    real = {"id": 1, "started": "1", "tags": ["t"], "fingerprint": {"hash": "a"}}
    sim = {"id": 2, "started": "2", "tags": ["t"],
           "fingerprint": {"hash": "b", "simulated": {"name": "flat-2x1"}}}
    assert [r["id"] for r in machine_runs([real, sim], tag="t")] == [2]
    assert [r["id"] for r in machine_runs([sim, {**real, "started": "3"}], tag="t")] == [1]
