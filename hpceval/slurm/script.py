"""The sbatch script of a submitted run. Every word that comes from the user is quoted for the
shell (shlex.quote) and #SBATCH values may hold no line break: a tag of `$(touch x)` is a tag."""
from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

from hpceval.errors import UsageError
from hpceval.slurm.runs import RUN_ID_VAR

# Variables of the submitting shell that decide what the job runs; exported by the script so
# that the stored script alone repeats the run.
PASSED_ON = ("HPCEVAL_BINDIR", "HPCEVAL_SLURM_MARGIN", "SLURM_MPI_TYPE")


@dataclass
class JobRequest:
    nodes: int
    ppn: Optional[int] = None
    partition: Optional[str] = None
    time: Optional[str] = None
    account: Optional[str] = None
    qos: Optional[str] = None
    sbatch_args: List[str] = field(default_factory=list)
    name: str = "hpceval"

    def directives(self, output: Path) -> List[str]:
        pairs = [("job-name", self.name), ("nodes", str(self.nodes)),
                 ("ntasks-per-node", self.ppn and str(self.ppn)), ("partition", self.partition),
                 ("time", self.time), ("account", self.account), ("qos", self.qos),
                 ("output", str(output)), ("chdir", os.getcwd())]
        words = [f"--{k}={v}" for k, v in pairs if v] + list(self.sbatch_args)
        for word in words:
            if "\n" in word or "\r" in word:
                raise UsageError(f"{word.splitlines()[0]!r}...: a line break in an sbatch option")
        return [f"#SBATCH {w}" for w in words]


def job_name(targets: List[str]) -> str:
    return "hpceval-" + re.sub(r"[^A-Za-z0-9_.+-]", "_", "+".join(targets))[:40]


def render(request: JobRequest, run_argv: List[str], db: str, run_id: Optional[int],
           output: Path) -> str:
    """The script: directives, the variables the run needs, then `hpceval run` (exec, so that
    Slurm's signals reach hpceval directly)."""
    lines = ["#!/bin/sh", *request.directives(output),
             "# Written by `hpceval submit`: the job fills run "
             f"{run_id if run_id is not None else '(assigned at submission)'} of the database.",
             "set -e"]
    if run_id is not None:
        lines.append(f"export {RUN_ID_VAR}={int(run_id)}")
    lines.append(f"export HPCEVAL_DB={shlex.quote(db)}")
    lines += [f"export {name}={shlex.quote(os.environ[name])}" for name in PASSED_ON
              if os.environ.get(name)]
    command = [sys.executable, "-m", "hpceval", "run", *run_argv, "--db", db]
    lines.append("exec " + shlex.join(command))
    return "\n".join(lines) + "\n"
