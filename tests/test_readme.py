"""The README is a door (issue #47): at most 8 KB, no line over 120 characters, the two commands
first (the Makefile's "two commands of the README"), and every relative link in it and in the
documentation's index (docs/README.md) and the pages that took the README's content points at a
file that exists."""
from __future__ import annotations

import re
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# The index and the guide and reference pages made of the README's former content.
LINKED = ["README.md", "docs/README.md", "docs/evaluate.md", "docs/nodes.md", "docs/install.md",
          "docs/usage.md", "docs/method.md", "docs/benchmarks.md", "docs/layout.md",
          "docs/precision.md"]
# [text](target) and ![alt](target); the text may run over a line break.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def test_readme_is_small():
    assert README.stat().st_size <= 8192


def test_no_readme_line_is_over_120_characters():
    long = [(n, len(l)) for n, l in enumerate(README.read_text(encoding="utf-8").splitlines(), 1)
            if len(l) > 120]
    assert long == []


def test_readme_starts_with_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    first_block = lines[lines.index("```sh") + 1:lines.index("```")]
    assert lines.index("```sh") <= 3, "the two commands come right after the title"
    assert [l.split()[:2] for l in first_block] == [["make", "quick"], ["make", "test"]]


def _relative_links(path: Path) -> List[str]:
    text = path.read_text(encoding="utf-8")
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t)]


@pytest.mark.parametrize("page", LINKED)
def test_every_relative_link_points_at_a_file(page):
    path = ROOT / page
    links = _relative_links(path)
    assert links or page not in ("README.md", "docs/README.md")
    missing = [t for t in links if t.split("#")[0]
               and not (path.parent / t.split("#")[0]).resolve().exists()]
    assert missing == [], f"{page}: links to files that do not exist"


def test_the_index_links_every_docs_page():
    # a benchmark's own page is linked from docs/benchmarks.md's table, which its declaration
    # writes (doc=): a new benchmark adds no line to the index
    index = {(ROOT / "docs" / t.split("#")[0]).resolve()
             for page in ("README.md", "benchmarks.md")
             for t in _relative_links(ROOT / "docs" / page)}
    unlisted = [p.name for p in sorted((ROOT / "docs").glob("*.md"))
                if p.name != "README.md" and p.resolve() not in index]
    assert unlisted == [], "docs pages missing from the index, docs/README.md: add a line each"
