"""One launch path: every planned launch (a run's, an experiment's, the cache probe's) runs
through hpceval.runner.session.run_launch, and every launcher command is built by
hpceval.runner.placement.launch_command (`hpceval trace` too); the one exception is the
nodes' fingerprint (hpceval/runner/nodeprint.py), a Python program started once per host, whose
command is the launcher's own; it too is started by hpceval.runner.execute.start, the one place
a launch's processes are started."""
from __future__ import annotations

import ast
from pathlib import Path

from hpceval.catalog import LaunchSpec
from hpceval.launch import find_launcher
from hpceval.runner.session import run_launch

PACKAGE = Path(__file__).resolve().parents[2] / "hpceval"


def _calls(name: str):
    """(file, line) of every call of a function or method named `name` in hpceval/."""
    for f in sorted(PACKAGE.rglob("*.py")):
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.Call):
                fn = n.func
                called = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                if called == name:
                    yield f.relative_to(PACKAGE).as_posix(), n.lineno


def test_one_execute_and_one_command_builder():
    executes = {f for f, _ in _calls("execute") if not f.startswith(("store/", "cli/__init__"))}
    assert executes == {"runner/session.py"}
    builders = {f for f, _ in _calls("command")}
    assert builders == {"runner/placement.py", "runner/nodeprint.py"}
    assert {f for f, _ in _calls("run_launch")} >= {"runner/session.py", "runner/llcprobe.py",
                                                    "experiment/run.py"}
    assert "cli/cmd_trace.py" in {f for f, _ in _calls("launch_command")}
    # ... and a build's (make and its guardian, cbuild.run_guarded: setup.py's standard library)
    assert {f for f, _ in _calls("Popen")} == {"runner/execute.py", "cbuild.py"}
    assert {f for f, _ in _calls("start")} >= {"runner/nodeprint.py", "runner/program.py"}


def test_run_launch_tags_and_checks_the_records(bindir):
    spec = LaunchSpec("pingpong", "pingpong np=2", "pingpong",
                      ["--sizes", "8", "--refine", "0", "--budget", "0.02", "--min-reps", "3",
                       "--max-reps", "5"], 2, "core", timeout_s=120.0)
    out = run_launch(find_launcher("auto", 2), spec, 120.0)
    assert out.status == "ok", out.message
    assert out.results and all(r["where"]["placement"] == "one node" for r in out.results)
    assert out.trace is None
