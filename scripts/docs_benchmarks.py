#!/usr/bin/env python3
"""Rewrite docs/benchmarks.md's table of benchmarks from their declarations (`hpceval list
--markdown`): run it after adding a benchmark or changing what one declares of itself
(description, ranks, headline, doc). `--check` only says whether the page is up to date (exit 1
when not); tests/cli/test_list.py runs that."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from hpceval.cli.cmd_list import markdown  # noqa: E402

PAGE = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- the table below is written by scripts/docs_benchmarks.py: do not edit it by hand -->"
END = "<!-- end of the generated table -->"


def rewritten(text: str) -> str:
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{markdown()}{END}{tail}"


def main() -> int:
    text = PAGE.read_text()
    new = rewritten(text)
    if "--check" in sys.argv[1:]:
        if new != text:
            print(f"{PAGE.relative_to(ROOT)} is not what the declarations say: run "
                  "scripts/docs_benchmarks.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
