"""Test helpers: run the real command line against a private database; small, fast settings."""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "build" / "bin"

# Tiny, fast settings for real runs in tests.
# Points this short rarely converge: no re-measuring of headline points (tests/runner/
# test_remeasure.py tests that), no cache probe (tests/runner/test_llcprobe.py tests it).
# Tests that count ping-pong sizes add "pingpong.refine=0" (tests/comm/test_switches.py tests
# the refinement).
FAST = ["--set", "budget=0.05", "--set", "min-reps=3", "--set", "max-reps=20", "--set", "warmup=1",
        "--no-remeasure", "--llc", "reported"]


def own_session(cmd: List[str]) -> List[str]:
    """An Open MPI 4 command without its session directory of its own (ompi_session.py)."""
    i = cmd.index("orte_tmpdir_base")
    assert cmd[i - 1] == "--mca" and cmd[i + 1].startswith(tempfile.gettempdir())
    return cmd[:i - 1] + cmd[i + 2:]


class CLI:
    """Runs `python -m hpceval` in a subprocess against a private database."""

    def __init__(self, db: Path):
        self.db = db

    def argv(self) -> List[str]:
        return [sys.executable, "-m", "hpceval"]

    def env(self, extra: dict | None = None) -> dict:
        return {**os.environ, "HPCEVAL_DB": str(self.db), **(extra or {})}

    def __call__(self, *args: str, timeout: float = 300, env: dict | None = None,
                 db: bool = True) -> subprocess.CompletedProcess:
        full = self.env(env)
        server = _cli_server()
        if server.serves(full):
            return server.run(list(args), full, str(ROOT), timeout)
        return subprocess.run([*self.argv(), *args], capture_output=True,
                              text=True, timeout=timeout, env=full, cwd=ROOT,
                              stdin=subprocess.DEVNULL)

    def export(self, *runs: str) -> List[dict]:
        p = self("export", *runs)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)


_SERVER: list = []


def _cli_server():
    """This test process's preloaded `python -m hpceval` (cliserver.py), started once."""
    if not _SERVER:
        from cliserver import Server
        _SERVER.append(Server(str(ROOT)))
    return _SERVER[0]


def db_digest(path: Path) -> str:
    """A hash of the database's content (schema and rows), or 'absent'."""
    if not path.exists():
        return "absent"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return hashlib.sha256("\n".join(conn.iterdump()).encode()).hexdigest()
    finally:
        conn.close()


def one_line_error(stderr: str) -> str:
    """The message of a failing command: no traceback; the reason is the last line."""
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert "Traceback" not in stderr, stderr
    assert lines, "no error message"
    return lines[-1]


def single_line(stderr: str) -> str:
    """The message of a refusal that must be exactly one line, without a traceback."""
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def skip_unless_required(reason: str, switch: str) -> None:
    """Skip a test this machine cannot run, with the reason; but where the switch is set (`make
    test` sets HPCEVAL_REQUIRE_CLUSTER and HPCEVAL_REQUIRE_SLURM: it installs what they need and
    runs as root) a skip would hide a missing install step: fail instead."""
    import pytest
    if os.environ.get(switch) == "1":
        pytest.fail(f"{reason} ({switch}=1: this run must not skip it)")
    pytest.skip(reason)


# The tests' virtual clusters keep their state in /run/hpceval-vcluster-<name>-<pid of the test
# session> (tests/cluster/conftest.py, tests/slurm/conftest.py); a session killed before its
# teardown leaves them up, namespaces and processes included.
CLUSTER_STATE_BASE = Path("/run")


def stale_test_clusters(base: Path = CLUSTER_STATE_BASE) -> List[Path]:
    """The tests' cluster state directories whose test session is no longer running."""
    found = []
    for d in base.glob("hpceval-vcluster-*-*"):
        pid = d.name.rpartition("-")[2]
        if d.is_dir() and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            found.append(d)
    return sorted(found)


def clear_stale_clusters(base: Path = CLUSTER_STATE_BASE) -> List[Path]:
    """Tear down what killed test sessions left (only directories named as the tests name
    theirs, whose session is gone; never a live session's nor a user's cluster)."""
    import shutil
    from hpceval import vcluster
    gone = stale_test_clusters(base)
    for d in gone:
        vcluster.down(d)
        shutil.rmtree(d, ignore_errors=True)    # a Slurm cluster's databases and job output
    return gone


def new_token() -> Dict[str, str]:
    """An environment variable unique to one test's launch (mpirun hands it to the ranks)."""
    import uuid
    return {"HPCEVAL_TEST_TOKEN": str(uuid.uuid4())}


def processes_of(binary: Optional[Path], token: Dict[str, str]) -> List[int]:
    """PIDs running `binary` (None: any program) with `token` in their environment: this
    test's launch (mpirun and the ranks) or build (make, mpicc, cc1), never another test's on
    the other worker of `make test`."""
    [(name, value)] = token.items()
    want, found = f"{name}={value}".encode(), []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmdline, environ = (d / "cmdline").read_bytes(), (d / "environ").read_bytes()
        except OSError:
            continue
        if (binary is None or str(binary).encode() in cmdline) and want in environ.split(b"\0"):
            found.append(int(d.name))
    return found


def wait_for(cond: Callable[[], object], limit_s: float) -> bool:
    """Poll `cond` every 0.1 s until it holds or `limit_s` has passed; its last answer."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return bool(cond())


def launches_stored(db: Path) -> int:
    """Launches a running driver has stored so far (read-only; 0 before the database exists)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            return c.execute("SELECT count(*) FROM launches").fetchone()[0]
    except sqlite3.Error:
        return 0


# ReFrame and EasyBuild, the centres' tools, live in a venv of their own (`make tools`:
# reframe-hpc pins its own dependencies); HPCEVAL_TOOLS names another such venv.
def tool(name: str) -> Path:
    venv = Path(os.environ.get("HPCEVAL_TOOLS", ROOT / ".venv-tools"))
    path = venv / "bin" / name
    if not path.exists():
        skip_unless_required(f"{name} is not installed in {venv} (make tools)",
                             "HPCEVAL_REQUIRE_TOOLS")
    return path


# The ReFrame checks shipped for centres, running this checkout's hpceval.
REFRAME_CHECKS = ROOT / "packaging" / "reframe" / "hpceval_checks.py"
HPCEVAL_COMMAND = f"env PYTHONPATH={ROOT} {sys.executable} -m hpceval"


def reframe_argv(prefix: Path, check: str, *settings: str) -> List[str]:
    """`reframe -r` of one shipped check into `prefix` (stage, output, perflogs, report), its
    stage directory kept (the hpceval database), with -S VAR=VALUE settings."""
    argv = [str(tool("reframe")), "-c", str(REFRAME_CHECKS), "-n", f"^{check}$", "-r",
            "--prefix", str(prefix), "--report-file", str(prefix / "report.json"),
            "--keep-stage-files", "-S", f"hpceval={HPCEVAL_COMMAND}"]
    for s in settings:
        argv += ["-S", s]
    return argv


def perflog(path: Path) -> Dict[str, str]:
    """The last line of a ReFrame perflog (its '|'-separated format) by column name."""
    header, *rows = path.read_text().splitlines()
    return dict(zip(header.split("|"), rows[-1].split("|")))


def plant_launch(store, fp: Dict, benchmark: str, nranks: int, *, label: str = "",
                 results: int = 1, elapsed_s: float = 1.0, estimate_s: Optional[float] = None,
                 startup_s: float = 1.0, status: str = "ok", command: str = "mpirun",
                 samples: int = 3) -> None:
    """One run of one launch that ended `status`, with its estimate and start-up as schema 6
    keeps them and `results` records of `samples` each: a past launch planted for what the
    planner learns."""
    stats = {"n": samples, "min": 1.0, "median": 1.0, "mean": 1.0, "max": 1.0, "stddev": 0.0,
             "ci_low": 1.0, "ci_high": 1.0}
    rid = store.create_run("study", [], fp, "hpceval run study", {})
    store.add_launch(rid, {"benchmark": benchmark, "label": label or f"{benchmark} np={nranks}",
                           "command": command, "nranks": nranks, "status": status,
                           "started": "2026-01-01T00:00:00+00:00", "elapsed_s": elapsed_s,
                           "exit_code": 0, "meta": None, "startup_s": startup_s,
                           "estimate_s": elapsed_s if estimate_s is None else estimate_s},
                     [{"benchmark": benchmark, "params": {"bytes": i}, "metric": "latency",
                       "unit": "us", "statistic": "median", "better": "lower",
                       "converged": True, "stats": stats} for i in range(results)])
    store.finish_run(rid, "ok" if status == "ok" else "failed")
