"""hpceval trace: run any MPI program with the PMPI trace library preloaded, merge the per-rank
traces into Chrome trace-event JSON (opens in Perfetto) or an OTF2 archive (Vampir).
docs/trace.md.

The program's stdout, stdin and exit status are its own; the summary goes to stderr."""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

from hpceval.cli.common import timeout_seconds, whole_number
from hpceval.outfiles import (check_output_dir, check_output_file, make_dir, output_errors,
                              whole_file)
from hpceval.errors import HpcevalError, Interrupted, UsageError
from hpceval.fingerprint import mem_available_bytes
from hpceval.launch import CHOICES, find_launcher
from hpceval.runner import Outcome, check_ranks, driver_signals
from hpceval.runner.placement import launch_command
from hpceval.runner.program import DEFAULT_TIMEOUT_S, run_program
from hpceval.trace import NoTraceError, TraceError, merge_dir, summarize
from hpceval.trace.merge import every_rank_written
from hpceval.trace.otf2export import check_target, write_otf2
from hpceval.trace.preload import trace_env

NAME = "trace"
HELP = ("trace an MPI program's calls and phases per rank into a Chrome trace (Perfetto) or an "
        "OTF2 archive (Vampir)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.usage = ("hpceval trace [-o PATH] [--format chrome|otf2] [--np N] [--keep-raw DIR] "
               "[--figures DIR] [--timeout S] -- CMD [ARGS...]")
    p.add_argument("-o", "--output", default=None, metavar="PATH",
                   help="merged trace (default: trace.json; with --format otf2 the archive "
                        "directory trace.otf2, which must not exist)")
    p.add_argument("--format", choices=("chrome", "otf2"), default="chrome",
                   help="chrome: Chrome trace-event JSON (Perfetto; default); otf2: an OTF2 "
                        "archive (Vampir; needs the otf2 Python package)")
    p.add_argument("--np", type=whole_number, default=None, metavar="N",
                   help="launch CMD (a plain program) with N ranks through hpceval's launcher; "
                        "without it CMD is run as given, e.g. mpirun -np 4 ./prog")
    p.add_argument("--launcher", choices=CHOICES, default="auto",
                   help="MPI launcher for --np (auto: srun inside Slurm, else mpirun/mpiexec)")
    p.add_argument("--keep-raw", metavar="DIR", default=None,
                   help="write the per-rank raw files to DIR and keep them")
    p.add_argument("--max-events", type=whole_number, default=None, metavar="N",
                   help="events kept per rank (default 2000000, 40 bytes each); more are counted "
                        "as dropped")
    p.add_argument("--timeout", type=timeout_seconds, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help="time limit in seconds, after which every process CMD started is ended "
                        f"(default {DEFAULT_TIMEOUT_S:g}; inside a Slurm job, before its end)")
    p.add_argument("--figures", metavar="DIR", default=None,
                   help="also draw the task Gantt chart and the utilization counts (SVG, PNG) "
                        "into DIR")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="CMD", help="the program and its arguments")


EVENT_BYTES = 40             # one event in a rank's buffer (csrc/trace/trace.h)


def _check_max_events(n: int, nranks: int) -> None:
    """Every rank allocates its buffer whole: one that cannot fit here is refused before the
    program starts, not found out by its ranks."""
    if n < 1:
        raise UsageError(f"--max-events {n}: must be at least 1")
    have = mem_available_bytes()
    if have and n * EVENT_BYTES * nranks > 0.8 * have:
        raise UsageError(f"--max-events {n}: {nranks} rank(s) x {n * EVENT_BYTES / 2**30:.1f} "
                         f"GiB of event buffer, but {have / 2**30:.1f} GiB of memory is "
                         "available")


def _check_usage(args: argparse.Namespace) -> List[str]:
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("trace: no command given (hpceval trace [options] -- CMD [ARGS...])")
    if args.np is not None and args.np < 1:
        raise UsageError(f"--np {args.np}: must be at least 1")
    if args.max_events is not None:
        _check_max_events(args.max_events, args.np or 1)
    if args.figures:
        check_output_dir(args.figures, "--figures")
    if args.output is None:
        args.output = "trace.otf2" if args.format == "otf2" else "trace.json"
    if args.format == "otf2":
        check_target(args.output)
    else:
        check_output_file(args.output, "-o", "json")
    if shutil.which(cmd[0]) is None:
        raise UsageError(f"{cmd[0]}: command not found (or not executable)")
    if args.keep_raw:
        raw = check_output_dir(args.keep_raw, "--keep-raw")
        if raw.is_dir() and any(raw.glob("rank-*.hpt")):
            raise UsageError(f"--keep-raw {raw}: already holds raw traces; use an empty directory")
    return cmd


def _status_text(rc: int) -> str:
    if rc < 0:
        try:
            return f"was killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"was killed by signal {-rc}"
    return f"exited with status {rc}"


def _summary(trace: dict, out: Path) -> str:
    od = trace["otherData"]
    lines = [f"hpceval trace: {od['nranks']} ranks, {sum(od['events'])} events "
             f"({sum(od['dropped_events'])} dropped), {max(od['event_cost_ns']):.0f} ns to record "
             f"one event -> {out}"]
    rows = summarize(trace)
    phases = sorted({k for r in rows for k in r["phase_pct"]})
    head = ["rank", "host", "traced ms", "MPI %", "idle %"] + [f"{p} %" for p in phases] + ["dropped"]
    table = [head]
    for r in rows:
        rank = r["rank"]
        table.append([str(rank), od["hosts"][rank], f"{r['window_us'] / 1000:.3f}",
                      f"{r['mpi_pct']:.1f}", f"{r['idle_pct']:.1f}"]
                     + [f"{r['phase_pct'].get(p, 0.0):.1f}" for p in phases]
                     + [str(od["dropped_events"][rank])])
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in table]
    if sum(od["dropped_events"]):
        lines.append("some events were dropped: the buffer was full (raise --max-events)")
    return "\n".join(lines)


def _program(cmd: List[str]) -> str:
    """The traced program's name for figure titles: past a launcher and its options, the first
    executable file named (mpirun -np 4 ./app -> app)."""
    if Path(cmd[0]).name in ("mpirun", "mpiexec", "srun", "orterun", "mpiexec.hydra"):
        for word in cmd[1:]:
            if os.path.isfile(word) and os.access(word, os.X_OK):
                return Path(word).name
    return Path(cmd[0]).name


def _launch(args: argparse.Namespace, cmd: List[str], tenv: Dict[str, str]) -> Outcome:
    """CMD run through the runner's launch path (hpceval/runner/program.py): with --np through
    hpceval's launcher and the command every launch gets (runner/placement.launch_command), refused beyond the launcher's rank limit; a hang ends in the time limit."""
    notes: List[str] = []            # the launch path's warnings (oversubscription, binding)
    if args.np is not None:
        launcher = find_launcher(args.launcher, len(os.sched_getaffinity(0)))
        check_ranks(args.np, launcher)
        cmd, notes = launch_command(launcher, None, args.np, cmd, "core", tenv)
    with driver_signals():
        try:
            out = run_program(cmd, tenv, args.timeout,
                              done=lambda: every_rank_written(tenv["HPCEVAL_TRACE_DIR"]))
        except OSError as exc:
            raise UsageError(f"cannot run {cmd[0]}: {exc.strerror or exc}") from None
    out.warnings += notes
    for warning in out.warnings:
        sys.stderr.write(f"hpceval: warning: {Path(cmd[0]).name} {warning}\n")
    if out.status == "interrupted":
        raise Interrupted(out.signum)
    if out.status == "timeout":
        raise HpcevalError(f"{Path(cmd[0]).name}: {out.message}; no trace written")
    return out


def _write(trace: dict, out: Path, fmt: str) -> None:
    if fmt == "otf2":
        write_otf2(trace, out)
        return
    with output_errors(f"-o {out}"), whole_file(out, "w", "json", "-o") as f:
        json.dump(trace, f, separators=(",", ":"))
        f.write("\n")


def _raw_dir(keep: str | None) -> Path:
    """Where the ranks write their raw files: the --keep-raw directory, made without following
    a link (outfiles.make_dir), or a private temporary one."""
    if keep is None:
        return Path(tempfile.mkdtemp(prefix="hpceval-trace-"))
    os.close(make_dir(keep, f"--keep-raw {keep}"))
    return Path(keep)


def execute(args: argparse.Namespace) -> int:
    cmd = user_cmd = _check_usage(args)
    out = Path(args.output)
    raw_dir = _raw_dir(args.keep_raw)
    try:
        launch = _launch(args, cmd, trace_env(raw_dir, args.max_events))
        rc = launch.exit_code
        failed = None
        if rc != 0:
            failed = f"{Path(launch.command[0]).name} {_status_text(rc)}"
            if launch.message and launch.message != failed:
                failed += f" ({launch.message})"
        try:
            trace = merge_dir(raw_dir, shlex.join(user_cmd))
        except TraceError as exc:
            if failed:
                why = "no rank wrote a trace" if isinstance(exc, NoTraceError) else str(exc)
                sys.stderr.write(f"hpceval: error: {failed}; no trace written: {why}\n")
                return rc if rc > 0 else 128 - rc
            if isinstance(exc, NoTraceError):
                raise
            raise HpcevalError(str(exc)) from None      # ranks missing although CMD succeeded: 1
        _write(trace, out, args.format)
        sys.stderr.write(_summary(trace, out) + "\n")
        if args.figures:
            from hpceval.report import save_trace_figures   # matplotlib: only when asked
            label = _program(user_cmd)
            for path in save_trace_figures(trace, label, Path(args.figures)):
                sys.stderr.write(f"wrote {path}\n")
        if failed:
            sys.stderr.write(f"hpceval: error: {failed}\n")
            return rc if rc > 0 else 128 - rc
        return 0
    finally:
        if not args.keep_raw:
            shutil.rmtree(raw_dir, ignore_errors=True)
