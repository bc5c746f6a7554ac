"""Slurm's command-line tools, run with a time limit; their one-line reasons for failing."""
from __future__ import annotations

import shutil
import subprocess
from typing import List, Optional, Sequence

from hpceval.errors import UsageError


def require(program: str) -> str:
    path = shutil.which(program)
    if not path:
        raise UsageError(f"no `{program}` on PATH: this is not a Slurm machine (or Slurm's "
                         "commands are not on PATH)")
    return path


def reason(text: str) -> str:
    """Slurm's reason in one line: its first 'error:' line without the program prefix."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for line in lines:
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return lines[0] if lines else "no reason given"


def run(argv: Sequence[str], timeout: float = 30) -> subprocess.CompletedProcess:
    require(argv[0])
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def output(argv: Sequence[str], timeout: float = 30) -> Optional[str]:
    """stdout of a query, or None when it fails (the job is gone, the controller is down)."""
    try:
        proc = run(argv, timeout)
    except (UsageError, OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def fields(text: str) -> dict:
    """`scontrol show ...` output as a dict (Key=Value words; values without spaces)."""
    out = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if sep:
            out[key] = value
    return out


def scontrol_show(kind: str, name: str) -> Optional[dict]:
    text = output(["scontrol", "show", kind, name])
    return fields(text) if text else None


def split_list(text: str) -> List[str]:
    return [w for w in text.replace(",", " ").split() if w]
