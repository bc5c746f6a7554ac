#!/usr/bin/env python3
"""Write hpceval/catalog/options.json from a build's option tables (BINDIR/hpceval-*.options.json,
each binary's --describe, written by csrc/Makefile): the snapshot the catalog declares its
parameters from (hpceval/catalog/options.py). Run after changing a binary's option table:

    make build && python3 scripts/options_snapshot.py [--check] [BINDIR]

--check writes nothing and fails (exit 1) when the snapshot differs from the build
(tests/catalog/test_options.py). Standalone: a stale snapshot may keep the catalog from loading."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "hpceval" / "catalog" / "options.json"


def built_tables(bindir: Path) -> dict:
    """binary -> its options, as the build in bindir wrote them."""
    return {p.name[len("hpceval-"):-len(".options.json")]: json.loads(p.read_text())["options"]
            for p in sorted(bindir.glob("hpceval-*.options.json"))}


def main(argv) -> int:
    check = "--check" in argv
    rest = [a for a in argv if a != "--check"]
    bindir = Path(rest[0]) if rest else ROOT / "build" / "bin"
    tables = built_tables(bindir)
    if not tables:
        print(f"options_snapshot: no hpceval-*.options.json in {bindir} (make build)",
              file=sys.stderr)
        return 1
    text = json.dumps(tables, indent=1, sort_keys=True) + "\n"
    if check:
        old = json.loads(SNAPSHOT.read_text())
        stale = sorted(b for b in tables if tables[b] != old.get(b))
        if stale:
            print(f"options_snapshot: {SNAPSHOT} differs from {bindir} for {', '.join(stale)}: "
                  "run scripts/options_snapshot.py", file=sys.stderr)
        return 1 if stale else 0
    SNAPSHOT.write_text(text)
    print(f"{SNAPSHOT}: {len(tables)} binaries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
