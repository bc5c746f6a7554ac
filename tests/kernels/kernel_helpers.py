"""Running the kernel binaries directly (1 rank, as hpceval launches them by default)."""
import subprocess

from hpceval.records import parse_record

QUICK = ["--budget", "0.02", "--min-reps", "2", "--max-reps", "3", "--warmup", "0"]


def run(bindir, name, *args, timeout=120):
    p = subprocess.run([str(bindir / f"hpceval-{name}"), *args], capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    return p, recs


def results(recs, metric=None):
    return [r for r in recs if r["type"] == "result" and metric in (None, r["metric"])]
