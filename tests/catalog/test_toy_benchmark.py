"""A whole benchmark added as ONE catalog module and its views, with no other edit: a toy that
runs the ping-pong binary at two fixed sizes, written into a directory named in
HPCEVAL_CATALOG_PATH. Its plan is its declaration (bench_toy.py); its machine-card row, its
headline row, its figure and its table are its views (views_toy.py), which the catalog does not
import (docs/architecture.md, "Adding a benchmark"); `hpceval list`, `run`, `show` and `report`
pick them up. Its records are stored under its own name, not the binary's. (The C half, one .c file built with no Makefile edit, is tested in tests/csrc.)"""
from __future__ import annotations

import textwrap

import pytest

from helpers import CLI

TOY = textwrap.dedent('''
    """toy: the ping-pong binary at 64 B and 4 KiB, fixed options."""
    from hpceval.catalog.registry import Benchmark, LaunchSpec, register_benchmark

    ARGS = ["--sizes", "64,4096", "--refine", "0", "--budget", "0.02", "--warmup", "1",
            "--min-reps", "3", "--max-reps", "20"]


    def _plan(b, values, ctx):
        return [LaunchSpec(b.name, "toy np=2", "pingpong", ARGS, 2, "core",
                           expected_results=4, timeout_s=120.0)]


    register_benchmark(Benchmark("toy", "toys", "a toy: ping-pong at two fixed sizes", (),
                                 _plan, ranks="2"))
''')


# Its views, beside it: card row, headline row, figure and table (hpceval/views, registered on
# import; a directory of HPCEVAL_CATALOG_PATH holds them as views_*.py).
TOY_VIEWS = textwrap.dedent('''
    """toy's views: a card row, a headline row, a figure and a table."""
    from hpceval.analysis.card import CardRow, Cell, register_card_row
    from hpceval.analysis.headlines import (Headline, at, curve_point, register_headline,
                                            select, value)
    from hpceval.views.data import records
    from hpceval.views.registry import FigureSpec, Table, TableSpec, register


    def get(run):
        recs = select(run.get("records") or [], "toy", "latency", bytes=4096)
        return Cell(value(recs[0]), "4 KiB messages", recs[0]) if recs else None


    def toy_bars(runs):
        from hpceval.views.plot import new_figure     # matplotlib: only when the report draws
        recs = [r for run in runs for r in records(run, "toy", "latency")]
        if not recs:
            return None
        fig = new_figure()
        ax = fig.add_subplot()
        ax.bar([str(r["params"]["bytes"]) for r in recs], [value(r) for r in recs])
        return fig


    def toy_table(run):
        recs = records(run, "toy", "latency")
        return Table(["bytes", "latency"], [[r["params"]["bytes"], value(r)] for r in recs],
                     "toy note") if recs else None


    register_card_row(CardRow("Toy section", "Toy latency at 4 KiB", "us", get))
    register_headline(Headline(curve_point("Toy headline, {}", "toy", "latency", "bytes",
                                           at(4096, "nearest")), order=5))
    register(FigureSpec("Toy section", "Toy figure: latency by size", toy_bars, "toy"))
    register(TableSpec("Toy section", "Toy table of latencies", toy_table))
''')


@pytest.fixture(scope="module")
def toy(tmp_path_factory, bindir):
    d = tmp_path_factory.mktemp("toy")
    (d / "catalog").mkdir()
    (d / "catalog" / "bench_toy.py").write_text(TOY)
    (d / "catalog" / "views_toy.py").write_text(TOY_VIEWS)
    cli = CLI(d / "r.sqlite")
    env = {"HPCEVAL_CATALOG_PATH": str(d / "catalog")}
    p = cli("run", "toy", "--no-remeasure", "--llc", "reported", env=env)
    return cli, env, d, p


def test_listed_only_with_its_module(toy):
    cli, env, _, _ = toy
    assert "toy" in cli("list", env=env).stdout
    assert "toy" not in cli("list").stdout.split()


def test_run_and_show(toy):
    cli, env, _, p = toy
    assert p.returncode == 0, p.stderr
    assert "Toy headline, 4 KiB" in p.stdout                 # the headline row, first
    [run] = cli.export()
    assert run["suite"] == "toy" and run["launches"][0]["benchmark"] == "toy"
    assert {r["params"]["bytes"] for r in run["records"]} == {64, 4096}
    shown = cli("show", "latest", "--all", env=env)
    assert shown.returncode == 0, shown.stderr
    assert "Toy headline, 4 KiB" in shown.stdout
    card = [l for l in shown.stdout.splitlines() if "Toy latency at 4 KiB" in l]
    assert card and not any("not measured" in l for l in card)        # the card row, filled
    assert "HPCEVAL_CATALOG_PATH" not in shown.stdout    # not part of the machine's fingerprint


def test_report(toy):
    cli, env, d, _ = toy
    out = d / "r.html"
    p = cli("report", "latest", "-o", str(out), env=env)
    assert p.returncode == 0, p.stderr
    html = out.read_text()
    for text in ("Toy section", "Toy figure: latency by size", "Toy table of latencies",
                 "Toy latency at 4 KiB", "Toy headline, 4 KiB"):
        assert text in html, text
    # Without the module the stored run still reports, with none of the toy's rows.
    p = cli("report", "latest", "-o", str(d / "plain.html"))
    assert p.returncode == 0, p.stderr
    assert "Toy section" not in (d / "plain.html").read_text()
