"""What docs/benchmarks.md says of each benchmark is what its declaration says (issue #47 item
2: a benchmark added in one place): the page's table is `hpceval list --markdown`, every
benchmark declares its headline metric, and a page it names exists."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from hpceval.catalog import BENCHMARKS
from hpceval.cli.cmd_list import markdown

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("docs_benchmarks",
                                                  ROOT / "scripts" / "docs_benchmarks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_page_s_table_is_the_declarations():
    script = _script()
    text = script.PAGE.read_text()
    assert script.rewritten(text) == text, \
        "docs/benchmarks.md is not what the declarations say: run scripts/docs_benchmarks.py"


def test_every_benchmark_has_a_row_a_headline_and_a_page_that_exists():
    table = markdown()
    for b in BENCHMARKS.values():
        assert f"| `{b.name}` |" in table
        assert b.headline, f"{b.name}: no headline= in its declaration"
        assert not b.doc or (ROOT / b.doc).is_file(), f"{b.name}: doc={b.doc} does not exist"


def test_a_cell_with_a_bar_does_not_break_the_row():
    from hpceval.catalog.registry import Benchmark
    b = Benchmark("x", "memory", "a | b", (), lambda *a: [], headline="c | d")
    BENCHMARKS["x"] = b
    try:
        row = next(l for l in markdown().splitlines() if "| `x` |" in l)
    finally:
        del BENCHMARKS["x"]
    assert row.count(" | ") == 5 and "a \\| b" in row and "c \\| d" in row
