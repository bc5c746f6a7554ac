"""The communication curves drawn from a real small run (hpceval/views/figures_commcurves.py):
broadcast bandwidth vs processors, collectives' throughput vs size, reduce with MPI_SUM beside
the null operation, random2 vs size, the placement patterns' swap bandwidth vs size."""
import pytest

from helpers import FAST, CLI
from hpceval.views import load
from hpceval.views import figures_commcurves as fc
from hpceval.views.data import records, value

load()


@pytest.fixture(scope="module")
def curves_run(tmp_path_factory, bindir):
    cli = CLI(tmp_path_factory.mktemp("curves") / "r.sqlite")
    p = cli("run", "collectives", "random2", "p2p", "--np", "2", *FAST,
            "--set", "collectives.sizes=8,1K", "--set", "collectives.ops=bcast,reduce,reduce-null",
            "--set", "collectives.nranks=2,3", "--set", "random2.sizes=8,1K",
            "--set", "p2p.sizes=8K,128K", "--set", "p2p.modes=swap",
            "--set", "p2p.protocols=sendrecv", "--set", "p2p.patterns=0-1,intra-pairs")
    assert p.returncode == 0, p.stderr
    [run] = cli.export()
    return run


def _lines(fig):
    """{label: [(x, y), ...]} of the figure's data lines (not the quality marks)."""
    return {l.get_label(): list(zip(l.get_xdata(), l.get_ydata())) for ax in fig.axes
            for l in ax.get_lines() if l.get_linestyle() != "None"
            and not l.get_label().startswith("_")}


def _points(run, metric, keep, x, bench="collectives"):
    """{(x, median)} of the run's records whose params match `keep`."""
    return {(r["params"][x], value(r)) for r in records(run, bench, metric)
            if all(r["params"].get(k) == v for k, v in keep.items())}


def test_bcast_bandwidth_against_processors(curves_run):
    lines = _lines(fc.bcast_ranks([curves_run]))
    assert list(lines) == ["8 B", "1 KiB"]              # by size, not by name
    for label, size in (("8 B", 8), ("1 KiB", 1024)):
        assert {x for x, _ in lines[label]} <= {2, 3}
        assert set(lines[label]) <= _points(curves_run, "bandwidth", {"op": "bcast", "bytes": size},
                                            "nranks")


def test_throughput_and_reduce_null(curves_run):
    lines = _lines(fc.collectives_throughput([curves_run]))
    assert set(lines) == {"bcast", "reduce", "reduce-null"}
    assert set(lines["reduce-null"]) <= _points(curves_run, "bandwidth",
                                                {"op": "reduce-null", "nranks": 3}, "bytes")
    lines = _lines(fc.reduce_null([curves_run]))
    assert set(lines) == {"reduce, MPI_SUM", "reduce, null operation"}
    assert set(lines["reduce, MPI_SUM"]) <= _points(curves_run, "latency",
                                                    {"op": "reduce", "nranks": 3}, "bytes")


def test_random2_and_swap_patterns(curves_run):
    fig = fc.random2_curves([curves_run])
    assert [set(_lines_of(ax)) for ax in fig.axes[:2]] == [{"2 ranks"}, {"2 ranks"}]
    fig = fc.swap_patterns([curves_run])
    lines = _lines(fig)
    assert set(lines) == {"0-1 (0-1) sendrecv", "intra-pairs (intra-pairs/2) sendrecv"}
    assert set(lines["0-1 (0-1) sendrecv"]) <= _points(
        curves_run, "bandwidth", {"mode": "swap", "pattern": "0-1"}, "bytes", "p2p")
    dotted = {l.get_xdata()[0] for l in fig.axes[0].get_lines() if l.get_linestyle() == ":"}
    assert dotted == set(fc.ORNL_SIZES)


def _lines_of(ax):
    return [l.get_label() for l in ax.get_lines() if l.get_linestyle() != "None"
            and not l.get_label().startswith("_")]


def test_nothing_measured_nothing_drawn(curves_run):
    bare = {**curves_run, "records": []}
    for make in (fc.bcast_ranks, fc.collectives_throughput, fc.reduce_null, fc.random2_curves,
                 fc.swap_patterns):
        assert make([bare]) is None, make.__name__
