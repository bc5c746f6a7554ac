"""Command line: one module per command, registered in COMMANDS. Errors become one line on
stderr and an exit code (0 ok, 1 a benchmark failed, 2 bad usage or input), never a traceback
(set HPCEVAL_DEBUG=1 to see one)."""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from hpceval import __version__
from hpceval.cli import (cmd_compare, cmd_export, cmd_history, cmd_import, cmd_list, cmd_machine,
                         cmd_report, cmd_run, cmd_runs, cmd_show, cmd_submit, cmd_trace)
from hpceval.errors import HpcevalError

COMMANDS = (cmd_run, cmd_submit, cmd_list, cmd_runs, cmd_show, cmd_export, cmd_import, cmd_compare, cmd_history,
            cmd_report, cmd_machine, cmd_trace)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:          # one line, exit 2 (argparse prints usage too)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hpceval", description="Evaluate a parallel computer: measure, store, "
                     "explain and compare.")
    parser.add_argument("--version", action="version", version=f"hpceval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for mod in COMMANDS:
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(execute=mod.execute)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.execute(args) or 0)
    except HpcevalError as exc:
        sys.stderr.write(f"hpceval: error: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("hpceval: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line, unless debugging
        if os.environ.get("HPCEVAL_DEBUG"):
            raise
        sys.stderr.write(f"hpceval: internal error: {type(exc).__name__}: {exc} "
                         "(HPCEVAL_DEBUG=1 shows the traceback)\n")
        return 1
