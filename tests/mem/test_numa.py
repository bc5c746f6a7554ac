"""Memory per home from a real small run (hpceval/analysis/numa.py, views rows_numa.py and
figures_numa.py): the latency and read-bandwidth sweeps with the memory bound to each home
(homes=each; this machine's homes), the card's rows per home, the figures and tables, and EV7
section 6's MPI latency beside the memory latency. The remote path is also read from a copy of
the run whose home-0 curves are re-labelled as two farther homes (stated where it is made):
this machine has one home to measure."""
import copy

import pytest

from helpers import FAST, CLI
from hpceval.analysis.card import machine_card
from hpceval.analysis.comm import mpi_point
from hpceval.analysis.numa import (ONE_HOME, home_curves, memory_beside_mpi, nearest_remote,
                                   nominal_mhz)
from hpceval.catalog.numa import numa_nodes
from hpceval.views import figures_numa as fn, load
from hpceval.views.data import value

load()
SIZES = "16K,1M,8M"


@pytest.fixture(scope="module")
def numa_run(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("numa") / "r.sqlite")
    p = cli("run", "mem-latency", "mem-bandwidth", "pingpong", *FAST,
            "--set", f"mem-latency.sizes={SIZES}", "--set", "mem-latency.homes=each",
            "--set", "mem-latency.window=0", "--set", f"mem-bandwidth.sizes={SIZES}",
            "--set", "mem-bandwidth.modes=read", "--set", "mem-bandwidth.homes=each",
            "--set", "pingpong.sizes=8,1K")
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    return run


def _card(run):
    return {(r["section"], r["quantity"]): r for r in machine_card(run)}


def _lines(fig):
    return {l.get_label(): list(zip(l.get_xdata(), l.get_ydata())) for ax in fig.axes
            for l in ax.get_lines() if l.get_linestyle() != "None"
            and not l.get_label().startswith("_")}


def test_a_curve_per_home_measured(numa_run):
    for kind in ("latency", "bandwidth"):
        curves = home_curves(numa_run, kind)
        assert sorted(curves) == list(range(numa_nodes()))
        for node, recs in curves.items():
            assert [r["params"]["bytes"] for r in recs] == [16 << 10, 1 << 20, 8 << 20]
            assert all(r["extra"]["memory_node"] == node for r in recs)


def test_card_rows_per_home(numa_run):
    card = _card(numa_run)
    local = card[("Memory per home (NUMA)", "Latency, local home")]
    top = home_curves(numa_run, "latency")[0][-1]       # CPU 0 is on home 0 here
    assert local["value"] == value(top) and local["point"].startswith("home 0, distance 10, 8 MiB")
    assert "ns only" in local["point"] or "cycles at" in local["point"]
    remote = card[("Memory per home (NUMA)", "Latency, nearest remote home")]
    if numa_nodes() == 1:
        assert remote["value"] == ONE_HOME
        assert card[("Memory per home (NUMA)",
                      "Read bandwidth, array larger than the local memory")]["value"] == ONE_HOME
    else:
        assert isinstance(remote["value"], float)


def test_mpi_latency_beside_memory_latency(numa_run):
    """EV7 section 6: the 8 B ping-pong latency beside the nearest remote home's latency (one
    home: the local DRAM's, said so), their difference and ratio, on the card and as a table."""
    m = memory_beside_mpi(numa_run)
    mpi = mpi_point("intra", "latency", 8)(numa_run).value
    assert m["mpi_us"] == mpi
    mem = nearest_remote(numa_run, "latency") or {"value": value(home_curves(numa_run, "latency")[0][-1])}
    assert m["mem_ns"] == mem["value"]
    assert m["difference_us"] == pytest.approx(mpi - mem["value"] / 1000)
    assert m["ratio"] == pytest.approx(mpi * 1000 / mem["value"])
    if numa_nodes() == 1:
        assert m["what"].startswith("local DRAM") and ONE_HOME in m["what"]
    card = _card(numa_run)
    section = "Messages against memory (EV7 section 6)"
    assert card[(section, "8 B MPI latency / memory latency")]["value"] == m["ratio"]
    table = fn.mpi_beside_memory(numa_run)
    assert [r[0] for r in table.rows][-1] == "ratio MPI / memory" and m["what"] in table.rows[1][3]


def test_figures_and_table_per_home(numa_run):
    lines = _lines(fn.latency_per_home([numa_run]))
    curves = home_curves(numa_run, "latency")
    assert len(lines) == len(curves) and "home 0 (local, distance 10)" in lines
    assert lines["home 0 (local, distance 10)"] == [(r["params"]["bytes"], value(r))
                                                   for r in curves[0]]
    fig = fn.latency_per_home([numa_run])
    title = fig.axes[0].get_title(loc="left")
    if nominal_mhz(numa_run)[0] is None:                 # this VM: no clock, said why
        assert "ns only" in title and fig.axes[0].child_axes == []
    else:
        assert "cycles" in fig.axes[0].child_axes[0].get_ylabel()
    lines = _lines(fn.bandwidth_per_home([numa_run]))
    assert "home 0 (local, distance 10)" in lines
    table = fn.homes_table(numa_run)
    assert [r[0] for r in table.rows] == list(range(numa_nodes()))
    if numa_nodes() == 1:
        assert ONE_HOME.capitalize() in table.note


def test_nearest_remote_home_is_the_closest(numa_run):
    """Read from a copy of the run in which home 0's curves also appear as homes 2 (distance 31)
    and 1 (distance 21), 2x and 1.5x slower: what a two-socket node records. The card's remote
    row, the table, the figure and the MPI comparison all take home 1."""
    run = copy.deepcopy(numa_run)
    extra = []
    for r in run["records"]:
        if (r["params"].get("node") == 0 and r["benchmark"] in ("mem-latency", "mem-bandwidth")):
            for node, dist, factor in ((2, 31, 2.0), (1, 21, 1.5)):
                c = copy.deepcopy(r)
                c["params"]["node"] = node
                c["extra"].update(memory_node=node, distance=dist)
                f = factor if r["metric"] == "latency" else 1 / factor
                c["stats"] = {k: v * f if k != "n" else v for k, v in c["stats"].items()}
                extra.append(c)
    run["records"] += extra
    near = nearest_remote(run, "latency")
    assert (near["home"], near["distance"]) == (1, 21)
    top = home_curves(run, "latency")[0][-1]
    assert near["value"] == pytest.approx(1.5 * value(top))
    card = _card(run)
    assert card[("Memory per home (NUMA)", "Latency, nearest remote home")]["value"] == near["value"]
    assert memory_beside_mpi(run)["mem_ns"] == near["value"]
    assert memory_beside_mpi(run)["what"].startswith("nearest remote home (home 1, distance 21")
    assert [r[:3] for r in fn.homes_table(run).rows][:3] == [[0, "local", "10"], [1, "remote", "21"],
                                                            [2, "remote", "31"]]
    assert set(_lines(fn.latency_per_home([run]))) == {
        "home 0 (local, distance 10)", "home 1 (remote, distance 21)", "home 2 (remote, distance 31)"}


def test_cycles_where_the_clock_is_known(numa_run):
    """A copy of the run whose fingerprint states a 2000 MHz nominal clock (this VM states
    none): the card's latency point, the table and the figure's right axis give cycles."""
    run = copy.deepcopy(numa_run)
    run["fingerprint"].update(nominal_mhz=2000.0, nominal_mhz_source="cpufreq base_frequency")
    ns = value(home_curves(run, "latency")[0][-1])
    local = _card(run)[("Memory per home (NUMA)", "Latency, local home")]
    assert f"; {ns * 2:.0f} cycles at 2000 MHz nominal" in local["point"]
    row = fn.homes_table(run).rows[0]
    assert row[4] == fn.fmt_num(ns * 2) and "Cycles at the nominal 2000 MHz" in fn.homes_table(run).note
    fig = fn.latency_per_home([run])
    assert "ns only" not in fig.axes[0].get_title(loc="left")
    [right] = fig.axes[0].child_axes                     # the secondary axis
    assert right.get_ylabel() == "cycles at 2000 MHz (nominal)"
