"""Command line: one module per command, registered in COMMANDS. Errors become one line on
stderr and an exit code (0 ok, 1 a benchmark failed, 2 bad usage or input), never a traceback
(set HPCEVAL_DEBUG=1 to see one)."""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sqlite3
import sys
from types import ModuleType
from typing import List, Optional, Sequence

from hpceval import __version__
from hpceval.errors import HpcevalError, Interrupted

# The commands, in `hpceval --help`'s order: each is the module hpceval.cli.cmd_<name> (NAME,
# HELP, add_arguments, execute). Only the command given is imported: importing every one (and
# so numpy, rich and most of hpceval) took 0.2 s before anything ran, 0.25 s of CPU for each of
# make test's 700 `python -m hpceval` (a third of those are refusals that run nothing).
COMMANDS = ("run", "submit", "list", "runs", "show", "export", "import", "compare", "history",
            "predict", "tune", "experiment", "report", "machine", "trace", "build", "spec", "twin")


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"hpceval.cli.cmd_{name}")


def _given(argv: Sequence[str]) -> List[str]:
    """The command the arguments name (the top level has options without values only), or
    every command (`hpceval --help`, a misspelt command: argparse lists them all), or none
    (`hpceval --version`)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is None and "--version" in argv and not {"-h", "--help"} & set(argv):
        return []                 # argparse prints the version before it needs a command
    return [first] if first in COMMANDS else list(COMMANDS)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:          # one line, exit 2 (argparse prints usage too)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser(argv: Optional[Sequence[str]] = None) -> argparse.ArgumentParser:
    """The parser of every command, or of the one `argv` names only."""
    parser = _Parser(prog="hpceval", description="Evaluate a parallel computer: measure, store, "
                     "explain and compare.")
    parser.add_argument("--version", action="version", version=f"hpceval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in _given(argv) if argv is not None else COMMANDS:
        mod = command_module(name)
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(execute=mod.execute)
    return parser


def _raise_on_stop(signum: int, _frame) -> None:
    raise Interrupted(signum)


def _stop_signals_end_the_command() -> None:
    """SIGTERM and SIGHUP end any command as Ctrl-C does (one line, exit 128 + the signal) from
    here on, also while its modules load or its summary prints; commands that start processes
    set hpceval/runner/signals.py's handlers over these, which end those processes first. A
    signal the caller chose to ignore (nohup) stays ignored."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _raise_on_stop)


def main(argv: Optional[List[str]] = None) -> int:
    _stop_signals_end_the_command()
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        sys.stderr.write(f"hpceval: interrupted by {signal.Signals(signum).name}\n")
        return 128 + signum


def _main(argv: List[str]) -> int:
    args = build_parser(argv).parse_args(argv)
    from hpceval.discover import BROKEN, PATH_ENV
    from hpceval.views import load_rows
    load_rows()                   # every benchmark's card and headline rows (hpceval/views)
    if BROKEN:                    # a module of the user's catalog path did not load
        sys.stderr.write(f"hpceval: error: {PATH_ENV}: {BROKEN[0]}\n")
        return 2
    try:
        code = int(args.execute(args) or 0)
        sys.stdout.flush()        # a full disk or closed pipe shows here, not at exit
        return code
    except HpcevalError as exc:
        sys.stderr.write(f"hpceval: error: {exc}\n")
        return exc.exit_code
    except sqlite3.DatabaseError as exc:    # a damaged database is bad input, not a bug
        sys.stderr.write(f"hpceval: error: database: {exc}\n")
        return 2
    except BrokenPipeError:       # `hpceval export | head`: the reader has all it wanted
        _drop_stdout()
        return 0
    except OSError as exc:
        if not _stdout_broken(exc):
            return _internal_error(exc)
        sys.stderr.write(f"hpceval: error: cannot write to standard output: "
                         f"{exc.strerror or exc}\n")
        return 2
    except Exception as exc:  # a bug: still one line, unless debugging
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    if os.environ.get("HPCEVAL_DEBUG"):
        raise exc
    sys.stderr.write(f"hpceval: internal error: {type(exc).__name__}: {exc} "
                     "(HPCEVAL_DEBUG=1 shows the traceback)\n")
    return 1


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that Python's flush at exit does not fail once more with
    a second message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


# A write that fails this way with no file named is the output stream's (files the commands
# write themselves turn their errors into UsageError naming the file).
_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EPIPE, errno.EBADF}


def _stdout_broken(exc: OSError) -> bool:
    """Whether exc is stdout failing (a full disk, /dev/full, EIO); if so stdout is dropped."""
    if exc.filename is not None or exc.errno not in _OUTPUT_ERRNOS:
        return False
    _drop_stdout()
    return True
