"""Each parameter a binary takes is declared once, in its C option table (issue #47): the catalog
reads the tables' snapshot (hpceval/catalog/options.json), and these tests hold the three in step:
the snapshot is what the built binaries --describe, `hpceval list -v` says what each binary's
--help says, and the catalog copies no binary option by hand nor passes one a binary lacks."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hpceval.catalog import BENCHMARKS, PlanContext
from hpceval.catalog.options import SNAPSHOT, from_binary, table

CTX = PlanContext(cores=2, llc_bytes=32 << 20, mem_available_bytes=16 << 30)
ROOT = Path(__file__).resolve().parents[2]
# "  --name TYPE   help" then "    default: D; ..."
_HELP = re.compile(r"^  --(\S+) \S+\s+(.*)\n\s+default: ([^;\n]*)", re.M)
# Benchmarks whose modules still declare their binary's options by hand (issue #47: converted
# one by one); each one converted leaves this list.
UNCONVERTED = set()


def binaries(bench):
    return sorted({s.binary for s in bench.plan({}, CTX)})


def help_table(bindir, binary):
    out = subprocess.run([str(bindir / f"hpceval-{binary}"), "--help"], capture_output=True,
                         text=True, timeout=60).stdout
    return {m.group(1): (m.group(2).strip(), m.group(3).strip()) for m in _HELP.finditer(out)}


def test_the_snapshot_is_the_build(bindir):
    """scripts/options_snapshot.py writes the snapshot; run it after changing a C table."""
    for build in (bindir, ROOT / "build-mpich" / "bin"):
        if build == bindir or list(build.glob("*.options.json")):
            done = subprocess.run([sys.executable, str(ROOT / "scripts" / "options_snapshot.py"),
                                   "--check", str(build)], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr


def test_describe_is_help(bindir):
    """--describe and --help print the same table."""
    for binary in sorted(json.loads(SNAPSHOT.read_text())):
        if not (bindir / f"hpceval-{binary}").exists():
            continue
        shown = help_table(bindir, binary)
        described = {o["name"]: (o["help"], o["default"]) for o in table(binary).values()}
        assert shown == described, binary


def test_list_says_what_help_says(bindir, capsys):
    """`hpceval list -v` shows each binary option with its --help text: by construction."""
    from hpceval.cli import cmd_list
    import argparse
    cmd_list.execute(argparse.Namespace(verbose=True, markdown=False))
    listed = capsys.readouterr().out
    for name, bench in sorted(BENCHMARKS.items()):
        for binary in binaries(bench):
            shown = help_table(bindir, binary)
            for p in bench.params:
                if p.binary == binary:
                    assert p.help.startswith(shown[(p.option or f"--{p.name}")[2:]][0]), \
                        (name, p.name)
                    assert f" {p.help}\n" in listed, (name, p.name)


def test_no_hand_written_option():
    """A parameter passed as a binary's option comes from its table (options.from_binary)."""
    copies = []
    for name, bench in sorted(BENCHMARKS.items()):
        if name in UNCONVERTED:
            continue
        opts = {o for b in binaries(bench) for o in table(b)}
        copies += [f"{name}: {p.name}" for p in bench.params
                   if not p.binary and (p.option or f"--{p.name}")[2:] in opts]
    assert not copies, "declared by hand, but the binary's: " + ", ".join(copies)


def test_planned_options_exist():
    """Every option a planned launch passes is in its binary's table."""
    wrong = []
    for name, bench in sorted(BENCHMARKS.items()):
        for spec in bench.plan({}, CTX):
            opts = table(spec.binary)
            wrong += [f"{name}: {a}" for a in spec.args
                      if a.startswith("--") and a[2:].split("=")[0] not in opts]
    assert not wrong, wrong


def test_overrides_stay_inside_the_binary():
    """A range or default planning narrows stays inside what the binary takes (#33: stream's
    catalog once defaulted to max-reps 1000 against the binary's 200)."""
    zero_is_off = {("mem-latency", "window")}    # 0: not measured, never passed
    wrong = []
    for name, bench in sorted(BENCHMARKS.items()):
        for p in bench.params:
            if not p.binary:
                continue
            o = table(p.binary)[(p.option or f"--{p.name}")[2:]]
            if o["type"] in ("int", "size", "double", "sizes") and p.min is not None:
                least = 0 if (name, p.name) in zero_is_off else o["min"]
                if p.min < least or p.max > o["max"]:
                    wrong.append(f"{name} {p.name}: [{p.min}, {p.max}] vs [{o['min']}, {o['max']}]")
            if p.choices and o["choices"] and set(p.choices) - set(o["choices"].split("|")):
                wrong.append(f"{name} {p.name}: {p.choices} vs {o['choices']}")
    assert not wrong, "\n".join(wrong)


def test_an_unknown_option_is_refused():
    """A benchmark declaring an option its binary lacks fails at import."""
    with pytest.raises(KeyError, match="no option --nosuch"):
        from_binary("nbc", "nosuch")


def test_a_relation_between_options_is_declared_once(bindir):
    """min-reps may not exceed max-reps: the harness's table says so (.at_most), --describe
    carries it, every benchmark's Param has it, and the plan refuses from it before launch."""
    described = json.loads(subprocess.run([str(bindir / "hpceval-pingpong"), "--describe"],
                                          capture_output=True, text=True).stdout)
    [mins] = [o for o in described["options"] if o["name"] == "min-reps"]
    assert mins["at_most"] == "max-reps"
    assert all(b.param("min-reps").at_most == "max-reps" for b in BENCHMARKS.values()
               if b.has_param("min-reps"))
    from hpceval.errors import UsageError
    with pytest.raises(UsageError, match="stream: min-reps 9 is larger than max-reps 3"):
        BENCHMARKS["stream"].plan({"min-reps": 9, "max-reps": 3}, CTX)
