#!/usr/bin/env python3
"""The eager limit bracketed under each MPI and limit setting, launch after launch, beside what
the ping-pong's latency curve shows at the same limit: what docs/eager.md quotes.

    python3 benchmarks/eager_limits.py [--launches 5] [--quiet]

Configurations: Open MPI's shared memory with btl_vader_eager_limit 4096 and 16384, MPICH
(Debian's, ch4:ucx) as installed and with UCX_RNDV_THRESH=16384. Each launch is `hpceval run
eager` (default sizes and refinement, budget 0.1 s a point) into a scratch database; for Open
MPI, one `hpceval run pingpong` sweep (sizes 512 B..64 KiB, refined) follows, and its bracket
nearest the limit is printed beside. The machine is shared unless --quiet says it was idle."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hpceval.analysis.commmodel import switches  # noqa: E402
from hpceval.analysis.eager import eager_limit  # noqa: E402

CONFIGS = (("Open MPI, eager limit 4096", "build", {"OMPI_MCA_btl_vader_eager_limit": "4096"}, 4096),
           ("Open MPI, eager limit 16384", "build", {"OMPI_MCA_btl_vader_eager_limit": "16384"},
            16384),
           ("MPICH (UCX), as installed", "build-mpich", {}, None),
           ("MPICH, UCX_RNDV_THRESH=16384", "build-mpich", {"UCX_RNDV_THRESH": "16384"}, 16384))


def hpceval(db: Path, bindir: str, env: dict, *args: str) -> dict:
    full = {**os.environ, **env, "HPCEVAL_DB": str(db), "HPCEVAL_BINDIR": str(ROOT / bindir / "bin")}
    p = subprocess.run([sys.executable, "-m", "hpceval", "run", *args, "--no-remeasure"],
                       capture_output=True, text=True, env=full, cwd=ROOT)
    if p.returncode:
        sys.exit(f"hpceval run {' '.join(args)} failed: {p.stderr.strip().splitlines()[-1:]}")
    out = subprocess.run([sys.executable, "-m", "hpceval", "export", "latest"], capture_output=True,
                         text=True, env=full, cwd=ROOT, check=True)
    return json.loads(out.stdout)[0]


def pingpong_bracket(run: dict, limit: int) -> str:
    near = [s for s in switches(run) if s.series == "pingpong"]
    if not near:
        return "none"
    s = min(near, key=lambda s: abs(s.n_after - limit))
    return f"{s.n_before}-{s.n_after} B ({s.t_before:.2f} -> {s.t_after:.2f} us)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=5)
    ap.add_argument("--quiet", action="store_true", help="the machine was idle")
    a = ap.parse_args()
    print(f"figures {'quiet' if a.quiet else 'LOADED (machine shared)'}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "r.sqlite"
        for label, bindir, env, limit in CONFIGS:
            for i in range(a.launches):
                run = hpceval(db, bindir, env, "eager", "--set", "budget=0.1")
                found = eager_limit(run, "intra-node")
                text = (f"{found[0].n_before}-{found[0].n_after} B, late receive "
                        f"{found[0].t_before:.2f} -> {found[0].t_after:.2f} us"
                        if found else "not bracketed")
                if bindir == "build":
                    pp = hpceval(db, bindir, env, "pingpong", "--set",
                                 "sizes=512,1K,2K,4K,8K,16K,32K,64K", "--set", "budget=0.5",
                                 "--set", "ci-target=0.01")
                    text += f"; ping-pong: {pingpong_bracket(pp, limit)}"
                print(f"{label}, launch {i + 1}: {text}", flush=True)


if __name__ == "__main__":
    main()
