"""hpceval at scale on simulated platforms (SimGrid SMPI, docs/simulate.md): the communication
suite (`hpceval run comm --simulate ...`, the settings of tests/simulate/test_scale64.py) at
64, 256 and 1,024 simulated ranks; per rank count the wall time, the peak memory of the whole
process tree (the driver, smpirun and its simulator, sampled every 0.2 s) and the status, and
then `show` and `report` on the stored run.

    .venv/bin/python benchmarks/smpi_scale.py                     # 64 and 256 ranks
    .venv/bin/python benchmarks/smpi_scale.py --ranks 64,256,1024 --timeout 3600

Needs the SMPI build (make build-smpi: build-smpi/bin) and smpirun."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ["--set", "budget=0.001", "--set", "min-reps=2", "--set", "max-reps=5",
            "--no-remeasure", "--set", "sizes=8,64K", "--set", "pingpong.refine=0",
            "--set", "p2p.modes=pingpong,swap", "--set", "p2p.protocols=send,isend,sendrecv",
            "--set", "halo.methods=pack,datatype"]


def _tree_rss(pid: int) -> int:
    """Resident bytes of `pid` and every descendant (from /proc)."""
    children: Dict[int, List[int]] = {}
    rss: Dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(d.name))
            rss[int(d.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


def measure(argv: List[str], env: Dict[str, str], timeout: float) -> Dict[str, float]:
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        if time.monotonic() - start > timeout:
            proc.kill()
            break
        time.sleep(0.2)
    err = proc.communicate()[1]
    return {"exit": proc.returncode, "wall": time.monotonic() - start, "peak": peak,
            "error": (err.strip().splitlines() or [""])[-1][:120]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", default="64,256", help="simulated rank counts (default 64,256)")
    ap.add_argument("--ppn", type=int, default=2, help="ranks per simulated node (default 2: "
                    "the suite's 4-rank patterns need 2 nodes)")
    ap.add_argument("--topology", default="fat-tree")
    ap.add_argument("--timeout", type=float, default=1800, help="per rank count, seconds")
    ap.add_argument("--launch-timeout", type=float, default=1200,
                    help="hpceval run --timeout: the plan's limits are for real launches, a "
                         "simulated one at hundreds of ranks takes longer (default 1200 s)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpceval-smpi-scale-"))
    env = {**os.environ, "HPCEVAL_DB": str(work / "r.sqlite"), "XDG_DATA_HOME": str(work),
           "HPCEVAL_BINDIR": str(ROOT / "build-smpi" / "bin"), "COLUMNS": "160"}
    hpceval = [sys.executable, "-m", "hpceval"]
    print(f"comm suite on simulated platforms ({args.topology}, {args.ppn} ranks per node; "
          f"databases in {work})")
    print(f"{'ranks':>6} {'nodes':>6} {'exit':>5} {'wall [s]':>9} {'peak [MB]':>10}  "
          f"{'show [s]':>8} {'report [s]':>10}  error")
    for ranks in (int(r) for r in args.ranks.split(",")):
        desc = (f"nodes={ranks // args.ppn},ppn={args.ppn},latency=1.5us,bandwidth=25GBps,"
                f"topology={args.topology}")
        run = measure(hpceval + ["run", "comm", "--simulate", desc, "--tag", f"scale{ranks}",
                                 "--timeout", str(args.launch_timeout), *SETTINGS], env,
                      args.timeout)
        show = measure(hpceval + ["show", "latest", "--all"], env, 600)
        report = measure(hpceval + ["report", "latest", "-o", str(work / f"r{ranks}.html")],
                         env, 600)
        print(f"{ranks:>6} {ranks // args.ppn:>6} {run['exit']:>5} {run['wall']:>9.1f} "
              f"{run['peak'] / 1e6:>10.0f}  {show['wall']:>8.1f} {report['wall']:>10.1f}  "
              f"{run['error'] if run['exit'] else ''}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
