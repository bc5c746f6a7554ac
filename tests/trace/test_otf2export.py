"""hpceval trace --format otf2: a real 2-rank trace written as an OTF2 archive that otf2-print
(Debian's otf2-tools, the reference reader) reads: 2 locations, phase and MPI regions, as many
message receives as sends with sender, receiver, size and tag; an existing target is refused."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from helpers import one_line_error
from hpceval.trace.otf2export import _rank_events
from trace_helpers import FOREIGN, built


def _otf2_print(*args: str) -> str:
    if not shutil.which("otf2-print"):
        pytest.fail("otf2-print is not installed: apt-get install otf2-tools (make test does)")
    proc = subprocess.run(["otf2-print", *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_two_rank_trace_as_otf2_read_by_otf2_print(cli, tmp_path):
    built()
    out = tmp_path / "trace.otf2"
    p = cli("trace", "--format", "otf2", "-o", str(out), "--np", "2", "--", str(FOREIGN))
    assert p.returncode == 0, p.stderr
    assert "hpceval trace: 2 ranks" in p.stderr
    anchor = str(out / "traces.otf2")
    defs = _otf2_print("-G", anchor)
    assert len(re.findall(r"^LOCATION +\d", defs, re.M)) == 2
    regions = set(re.findall(r'^REGION +\d+ +Name: "([^"]+)"', defs, re.M))
    assert {"MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Finalize"} <= regions
    assert {"round", "exchange", "sum"} <= regions                       # the program's phases
    events = _otf2_print(anchor)
    sends = re.findall(r"^MPI_SEND +(\d) .*Receiver: (\d) .*Tag: (\d+), Length: (\d+)", events, re.M)
    recvs = re.findall(r"^MPI_RECV +(\d) .*Sender: (\d) .*Tag: (\d+), Length: (\d+)", events, re.M)
    assert sends and len(sends) == len(recvs)
    # every message: sent by one rank to the other, received by it from the sender, same size
    assert sorted((s, r, tag, n) for s, r, tag, n in sends) == \
        sorted((snd, rcv, tag, n) for rcv, snd, tag, n in recvs)
    assert all(s != r for s, r, _, _ in sends)
    enters = len(re.findall(r"^ENTER ", events, re.M))
    assert enters == len(re.findall(r"^LEAVE ", events, re.M)) and enters > 10


def test_existing_otf2_target_is_refused_before_running(cli, tmp_path):
    out = tmp_path / "exists"
    out.mkdir()
    (out / "keep").write_text("mine")
    p = cli("trace", "--format", "otf2", "-o", str(out), "--np", "2", "--", str(FOREIGN))
    assert p.returncode == 2
    assert "already exists" in one_line_error(p.stderr) and p.stderr.count("\n") == 1
    assert [x.name for x in out.iterdir()] == ["keep"] and p.stdout == ""
    assert sorted(x.name for x in tmp_path.iterdir()) == ["exists"]


def test_slices_nest_and_stay_in_time_order():
    """A child slice rounded past its parent's end ends with it; messages sit inside their call."""
    def sl(name, ts, dur, **args):
        return {"ph": "X", "cat": "mpi" if name.startswith("MPI_") else "phase", "name": name,
                "pid": 0, "tid": 0, "ts": ts, "dur": dur, "args": args}
    evs = [sl("step", 0.0, 10.0), sl("MPI_Send", 1.0, 2.0, peer=1, tag=3, bytes=8),
           sl("MPI_Recv", 8.0, 2.0005, peer=1, tag=4, bytes=8), sl("MPI_Barrier", 12.0, 1.0)]
    out = [(t, what, ev["name"]) for t, what, ev in _rank_events(evs)]
    assert out == [(0, "enter", "step"), (1000, "enter", "MPI_Send"), (1000, "send", "MPI_Send"),
                   (3000, "leave", "MPI_Send"), (8000, "enter", "MPI_Recv"),
                   (10000, "recv", "MPI_Recv"), (10000, "leave", "MPI_Recv"),
                   (10000, "leave", "step"), (12000, "enter", "MPI_Barrier"),
                   (13000, "leave", "MPI_Barrier")]


def test_traces_stored_by_run_trace_export_as_otf2(cli, tmp_path, bindir):
    p = cli("run", "pingpong", "--np", "2", "--trace", "--set", "sizes=8", "--set", "refine=0",
            "--set", "budget=0.02", "--set", "max-reps=20", "--no-remeasure", "--llc", "reported")
    assert p.returncode == 0, p.stderr
    out = tmp_path / "archives"
    p = cli("export", "--format", "otf2", "-o", str(out))
    assert p.returncode == 0 and "wrote 1 OTF2 archive" in p.stdout, p.stderr
    [archive] = list(out.iterdir())
    assert archive.name == "1-1-pingpong"
    anchor = str(archive / "traces.otf2")
    assert len(re.findall(r"^LOCATION +\d", _otf2_print("-G", anchor), re.M)) == 2
    events = _otf2_print(anchor)
    assert len(re.findall(r"^MPI_SEND ", events, re.M)) == len(re.findall(r"^MPI_RECV ", events, re.M)) > 0
    again = cli("export", "--format", "otf2", "-o", str(out))
    assert again.returncode == 2 and "already exists" in one_line_error(again.stderr)
    for args in (("--format", "otf2"), ("--format", "json", "-o", str(tmp_path / "x"))):
        p = cli("export", *args)
        assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
