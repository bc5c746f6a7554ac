"""Submit a run as a batch job: the run is made first (queued) in the user's database, the job's
`hpceval run` fills it there (the database is on a file system the nodes share), so each finished
launch is stored the moment it ends and a job that dies half way loses nothing stored before."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List

from hpceval.errors import UsageError
from hpceval.fingerprint import machine_fingerprint
from hpceval.slurm import commands
from hpceval.slurm.script import JobRequest, render
from hpceval.store import Store


class SlurmRejected(UsageError):
    """sbatch refused the job: exit 2 with Slurm's reason."""


@dataclass
class Submitted:
    run_id: int
    job_id: str
    script: Path


def jobs_dir(db: str) -> Path:
    """Scripts and job output beside the database (the shared file system)."""
    return Path(db).resolve().parent / "hpceval-jobs"


def _sbatch(*args: str) -> str:
    proc = commands.run(["sbatch", *args], timeout=60)
    if proc.returncode:
        raise SlurmRejected(f"sbatch: {commands.reason(proc.stderr + proc.stdout)}")
    return proc.stdout.strip()


def submit(request: JobRequest, run_argv: List[str], suite: str, tags: List[str],
           db: str, command: str) -> Submitted:
    """Make the queued run, write its script, let sbatch check it (--test-only also catches more
    nodes than the partition has, which sbatch would queue for ever), then submit it. A refused
    job leaves its run failed with Slurm's reason."""
    commands.require("sbatch")
    db = str(Path(db).resolve())
    store = Store(db)
    try:
        run_id = store.create_run(suite, tags, machine_fingerprint(), command, {},
                                  status="queued")
        directory = jobs_dir(db)
        directory.mkdir(parents=True, exist_ok=True)
        script = directory / f"run-{run_id}.sbatch"
        text = render(request, run_argv, db, run_id, directory / "run-%j.out")
        script.write_text(text)
        store.set_settings(run_id, {"slurm": {"script": text, "script_path": str(script),
                                              "request": vars(request)}})
        try:
            _sbatch("--test-only", str(script))
            job = _sbatch("--parsable", str(script)).split(";")[0]
        except SlurmRejected as exc:
            store.end_job_run(run_id, "failed", str(exc))
            raise
        store.set_job(run_id, job)
        return Submitted(run_id, job, script)
    finally:
        store.close()


def dry_run(request: JobRequest, run_argv: List[str], db: str) -> str:
    db = str(Path(db).resolve())
    return render(request, run_argv, db, None, jobs_dir(db) / "run-%j.out")
