"""The catalog never offers what its binary refuses (#33): every numeric parameter's range and
default lie inside the range of the option it is passed as (the binary's --help table), and a
choice's words are the binary's. stream's catalog once defaulted to max-reps 1000 against the
binary's 200: every launch failed."""
from __future__ import annotations

import re
import subprocess
from typing import Dict, Tuple

import pytest

from hpceval.catalog import BENCHMARKS, PlanContext

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
# "  --name TYPE   help" then "    default: D; range [lo, hi]" or "; one of a|b"
_OPTION = re.compile(r"^  --(\S+) \S+.*\n\s+default: [^;\n]*(?:; (?:range \[([^,]+), ([^\]]+)\]"
                     r"|one of (\S+)))?", re.M)


# 0 means "off" in the catalog and is never passed; 1..63 are refused by mem-latency's check
ZERO_IS_OFF = {("mem-latency", "window")}


def options(bindir, binary: str) -> Dict[str, Tuple]:
    out = subprocess.run([str(bindir / f"hpceval-{binary}"), "--help"], capture_output=True,
                         text=True, timeout=60).stdout
    return {m.group(1): m.groups()[1:] for m in _OPTION.finditer(out)}


def pairs(bindir):
    for name, bench in sorted(BENCHMARKS.items()):
        for binary in sorted({s.binary for s in bench.plan({}, CTX)}):
            table = options(bindir, binary)
            for p in bench.params:
                opt = (p.option or f"--{p.name}")[2:]
                if opt in table:
                    yield name, p, table[opt]


def test_every_parameter_fits_its_option(bindir):
    wrong = []
    for name, p, (lo, hi, words) in pairs(bindir):
        if lo is not None and p.kind in ("int", "float", "size", "sizes", "floats", "ints"):
            lo, hi = float(lo), float(hi)
            least = lo if (name, p.name) not in ZERO_IS_OFF else 0
            if p.min is None or p.max is None or p.min < least or p.max > hi:
                wrong.append(f"{name} {p.name}: [{p.min}, {p.max}] vs the binary's [{lo:g}, {hi:g}]")
            for d in p.default if isinstance(p.default, list) else [p.default]:
                if isinstance(d, (int, float)) and not lo <= d <= hi:
                    wrong.append(f"{name} {p.name}: default {d} outside [{lo:g}, {hi:g}]")
        if words and p.kind == "choice" and set(p.choices) - set(words.split("|")):
            wrong.append(f"{name} {p.name}: {p.choices} vs the binary's {words}")
    assert not wrong, "\n".join(wrong)


def test_the_table_is_read(bindir):
    """The parser finds the options (a changed --help layout must not pass this vacuously)."""
    table = options(bindir, "stream")
    assert table["max-reps"][:2] == ("1", "200") and table["n"][0] == "0"
    assert sum(1 for _ in pairs(bindir)) > 100
