"""Execute one launch: start the MPI job, read its JSON Lines as they come, enforce the time
limit (the whole process group is killed), and say what happened."""
from __future__ import annotations

import ctypes
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from hpceval.records import RecordError, parse_record
from hpceval.runner.signals import caught as stop_caught, check as check_stop
from hpceval.runner.procs import end_session

STDERR_KEEP = 50    # lines of stderr kept for the failure message
# Seconds a launch may take to exit after its end record. MPICH over UCX 1.13's TCP transport
# often hangs in MPI_Finalize (openucx/ucx#8738, docs/vcluster.md): every record is in, so the
# launch counts as ok, is ended, and says so in its warnings.
FINALIZE_GRACE_S = 3.0


@dataclass
class Outcome:
    command: List[str]
    started: str
    status: str = "ok"                 # ok | failed | timeout | invalid | interrupted
    exit_code: Optional[int] = None
    elapsed_s: float = 0.0
    message: Optional[str] = None
    usage_error: bool = False          # the binary rejected its options (exit 2)
    signum: int = 0                    # with status interrupted: the signal the driver got
    meta: Optional[Dict[str, Any]] = None
    results: List[Dict[str, Any]] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    trace: Optional[Dict[str, Any]] = None   # a traced launch's merged trace (session.py)

    @property
    def command_line(self) -> str:
        return shlex.join(self.command)


def _pump(stream, q: "queue.Queue", tag: str) -> None:
    for line in stream:
        q.put((tag, line))
    q.put((tag, None))


def _kill(proc: subprocess.Popen) -> None:
    """Terminate the launcher and every process it started: its new session (ranks, remote
    agents in process groups of their own) and their descendants."""
    end_session(proc.pid)
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        pass


_PR_SET_PDEATHSIG = 1        # linux/prctl.h


def _die_with_parent(parent: int) -> Callable[[], None]:
    """A preexec function: the launcher is SIGKILLed when the driver dies, however it dies
    (SIGKILL included, when no handler of ours can run); Open MPI's ranks end with their
    mpirun. The launcher's own session keeps terminal signals away from it otherwise."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):       # not Linux: the signal handlers still cover most
        return lambda: None

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:           # the driver died before prctl took effect
            os.kill(os.getpid(), signal.SIGKILL)
    return preexec


def start(command: List[str], env: Dict[str, str], **kw: Any) -> subprocess.Popen:
    """Start a launch in a session of its own that dies with the driver (raises OSError).
    `kw`: Popen's stream arguments (default: stdout and stderr piped as text, stdin closed)."""
    streams = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                   text=True, bufsize=1)
    streams.update(kw)
    return subprocess.Popen(command, env={**os.environ, **env}, start_new_session=True,
                            preexec_fn=_die_with_parent(os.getpid()), **streams)


class _Reader:
    """The launch's output as it comes: records into the outcome, stderr's last lines kept."""

    def __init__(self, out: Outcome, on_record: Callable[[Dict[str, Any]], None]):
        self.out, self.on_record = out, on_record
        self.stderr: List[str] = []
        self.ended, self.error_msg = False, None

    def line(self, tag: str, line: str) -> None:
        out = self.out
        if tag == "err":
            self.stderr.append(line.rstrip())
            del self.stderr[:-STDERR_KEEP]
            return
        if not line.strip():
            return
        try:
            rec = parse_record(line)
        except RecordError as exc:
            if out.status == "ok":
                out.status, out.message = "invalid", str(exc)
            return
        kind = rec["type"]
        if kind == "result":
            out.results.append(rec)
            self.on_record(rec)
        elif kind == "meta":
            out.meta = rec
        elif kind == "warning":
            out.warnings.append(rec["message"])
        elif kind == "error":
            self.error_msg = rec["message"]
        elif kind == "end":
            self.ended = True


def _read(proc: subprocess.Popen, reader: _Reader, deadline: float, timeout_s: float) -> bool:
    """Read until both streams close or the time limit; True when the launch hung after its
    end record (ended, its records kept)."""
    out = reader.out
    q: "queue.Queue" = queue.Queue()
    for stream, tag in ((proc.stdout, "out"), (proc.stderr, "err")):
        threading.Thread(target=_pump, args=(stream, q, tag), daemon=True).start()
    open_streams = 2
    while open_streams:
        check_stop()
        remaining = deadline - time.monotonic()
        if remaining <= 0 and reader.ended and reader.error_msg is None:
            _kill(proc)
            out.warnings.append(f"still running {FINALIZE_GRACE_S:g} s after its end record "
                                "(hung in MPI_Finalize?): ended, its records kept")
            return True
        if remaining <= 0:
            _kill(proc)
            out.status = "timeout"
            out.message = f"killed after the {timeout_s:.0f} s time limit (a rank hung?)"
            return False
        try:
            tag, line = q.get(timeout=min(remaining, 0.5))
        except queue.Empty:
            continue
        if line is None:
            open_streams -= 1
            continue
        was_ended = reader.ended
        reader.line(tag, line)
        if reader.ended and not was_ended:
            deadline = min(deadline, time.monotonic() + FINALIZE_GRACE_S)
    return False


def interrupted(out: Outcome, exc: BaseException) -> None:
    """Mark the outcome of a launch that the driver's signal (or Ctrl-C) stopped."""
    stop_caught()
    out.signum = getattr(exc, "signum", signal.SIGINT)
    out.status = "interrupted"
    out.message = f"interrupted by {signal.Signals(out.signum).name}"


def reap(proc: subprocess.Popen, out: Outcome, t0: float) -> None:
    """Wait for the launcher (ending it when it outlives a failed launch): exit code, time."""
    if proc.poll() is None and out.status != "ok":
        _kill(proc)
    try:
        out.exit_code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        _kill(proc)
        out.exit_code = proc.poll()
    out.elapsed_s = time.monotonic() - t0


def _reap_keeping_records(proc: subprocess.Popen, out: Outcome, t0: float) -> None:
    """reap(); a stop signal while waiting for the launcher's exit (its output all read) ends
    the launch as interrupted with its records, which the caller stores, instead of leaving
    execute() with them."""
    try:
        reap(proc, out, t0)
    except KeyboardInterrupt as exc:
        _kill(proc)
        interrupted(out, exc)
        out.exit_code, out.elapsed_s = proc.poll(), time.monotonic() - t0


def execute(command: List[str], env: Dict[str, str], timeout_s: float, started: str,
            on_record: Callable[[Dict[str, Any]], None] = lambda r: None) -> Outcome:
    out = Outcome(command=command, started=started)
    t0 = time.monotonic()
    try:
        proc = start(command, env)
    except OSError as exc:
        out.status, out.message = "failed", f"cannot start {command[0]}: {exc.strerror or exc}"
        return out
    reader = _Reader(out, on_record)
    hung_in_finalize = False
    try:
        hung_in_finalize = _read(proc, reader, t0 + timeout_s, timeout_s)
    except KeyboardInterrupt as exc:
        _kill(proc)
        interrupted(out, exc)
    finally:
        _reap_keeping_records(proc, out, t0)
    if (out.status == "ok" or out.status == "invalid") and not hung_in_finalize:
        if out.exit_code != 0:
            out.status = "failed"
            out.usage_error = out.exit_code == 2 and reader.error_msg is not None
            out.message = (reader.error_msg or _last_meaningful(reader.stderr)
                           or f"exited with status {out.exit_code}")
        elif not reader.ended and out.status == "ok":
            # smpirun exits 0 when its ranks called MPI_Abort: their error record says why
            out.status = "failed"
            out.message = (reader.error_msg or _rank_error(reader.stderr)
                           or "exited without an end record (output truncated?)")
    return out


# Open MPI's report of the first rank that exited non-zero: "Process name: [[jobid,1],RANK]"
# and "Exit code: N" (or "Signal: ...") a line or two later.
_ORTE_RANK = re.compile(r"Process name:\s*\[\[\d+,\d+\],(\d+)\]")
_ORTE_EXIT = re.compile(r"(Exit code|Signal):\s*(.+)")


# The harness's own reason from a rank that writes no records (output.c, hpc_write_error)
_RANK_ERROR = re.compile(r"hpceval-[\w-]+: error \(rank (\d+)\): (.+)")


def _rank_error(lines: List[str]) -> Optional[str]:
    """The first rank's own error line: it says why (a data check), where mpirun's abort
    banner says only which rank ("MPI_ABORT was invoked on rank 1")."""
    for l in lines:
        m = _RANK_ERROR.search(l)
        if m:
            return f"rank {m.group(1)}: {m.group(2).strip()}"[:300]
    return None


def _last_meaningful(lines: List[str]) -> Optional[str]:
    # mpirun surrounds a rank's death with banners of dashes; keep the first informative line.
    text = [l.strip() for l in lines if l.strip() and not set(l.strip()) <= set("-=*")]
    own = _rank_error(text)
    if own:
        return own
    for i, l in enumerate(text):
        rank = _ORTE_RANK.search(l)
        if rank:
            for nxt in text[i + 1:i + 4]:
                code = _ORTE_EXIT.search(nxt)
                if code:
                    what = "exited with status" if code.group(1) == "Exit code" else "was killed by"
                    return (f"rank {rank.group(1)} {what} {code.group(2).strip()} "
                            "(mpirun ended the job)")
    # A tool's own one-line error (the remote agent: "vcluster: error: no node ...", "ssh: ...")
    # says more than the launcher's banner about it.
    for l in text:
        if re.match(r"[\w.-]+: (error: |connect to host |Could not resolve)", l):
            return l[:300]
    banner = _first_banner(lines)
    if banner:
        return banner
    for l in text:
        low = l.lower()
        if any(w in low for w in ("error", "exited", "signal", "killed", "abort", "not found")):
            return l[:300]
    return text[-1][:300] if text else None


def _first_banner(lines: List[str]) -> Optional[str]:
    """The first sentence of Open MPI's first help banner (a line of dashes, then the message:
    "ORTE was unable to reliably start one or more daemons.", "An MPI communication peer
    process has unexpectedly disconnected. ..."): what went wrong, before the advice."""
    text = [l.strip() for l in lines]
    for i, l in enumerate(text[:-1]):
        if l and set(l) <= set("-") and text[i + 1] and not set(text[i + 1]) <= set("-"):
            words: List[str] = []
            for j, nxt in enumerate(text[i + 1:i + 5], i + 1):
                if not nxt or set(nxt) <= set("-"):
                    break
                words.append(nxt)
                if nxt.endswith((".", ":")):
                    break
            if words and words[-1].endswith(":"):      # "...directory:", then what it was
                words += _details(text[j + 1:])
            return " ".join(words)[:300]
    return None


def _details(text: List[str]) -> List[str]:
    """The paragraph after a banner's "...:" line ("Directory: /tmp/x", "Error: ...")."""
    while text and not text[0]:
        text = text[1:]
    out: List[str] = []
    for l in text[:4]:
        if not l or set(l) <= set("-"):
            break
        out.append(" ".join(l.split()))
    return out
