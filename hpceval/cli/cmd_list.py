"""hpceval list: benchmarks and suites, one line each, with their parameters."""
from __future__ import annotations

import argparse

from hpceval.catalog import BENCHMARKS, SUITES
from hpceval.catalog.common import REPETITION_NAMES

NAME = "list"
HELP = "list benchmarks and suites with their parameters"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--verbose", "-v", action="store_true", help="describe every parameter")
    p.add_argument("--markdown", action="store_true",
                   help="the benchmarks as docs/benchmarks.md's table (from their declarations)")


AREAS = ("memory", "communication", "kernels", "proxies", "nas")


def markdown() -> str:
    """docs/benchmarks.md's table: every benchmark by area, what its declaration says of it."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")
    order = {a: i for i, a in enumerate(AREAS)}
    rows = sorted(BENCHMARKS.values(), key=lambda b: (order.get(b.area, len(AREAS)), b.area))
    lines = ["| area | benchmark | what | ranks | headline metric (statistic) | page |",
             "|---|---|---|---|---|---|"]
    for b in rows:
        page = f"[{b.doc[len('docs/'):]}]({b.doc[len('docs/'):]})" if b.doc else ""
        lines.append(f"| {b.area} | `{b.name}` | {cell(b.description)} | {cell(b.ranks)} | "
                     f"{cell(b.headline)} | {page} |")
    return "\n".join(lines) + "\n"


def execute(args: argparse.Namespace) -> int:
    if args.markdown:
        print(markdown(), end="")
        return 0
    width = max(len(n) for n in list(BENCHMARKS) + list(SUITES))
    print("Benchmarks (common parameters: " + ", ".join(REPETITION_NAMES) + "):")
    for b in BENCHMARKS.values():
        own = [p.describe() for p in b.params if p.name not in REPETITION_NAMES]
        print(f"  {b.name:<{width}}  [{b.area}, ranks {b.ranks}] {b.description}; "
              f"params: {' '.join(own)}")
        if args.verbose:
            for p in b.params:
                print(f"  {'':<{width}}    {p.describe():<28} {p.help}")
    print("Suites:")
    for s in SUITES.values():
        print(f"  {s.name:<{width}}  {s.description}: {', '.join(e[0] for e in s.entries)}")
    return 0
