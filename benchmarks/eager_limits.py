#!/usr/bin/env python3
"""The eager limit bracketed under each MPI and limit setting, launch after launch, beside what
the ping-pong's latency curve shows at the same limit: what docs/eager.md quotes.

    python3 benchmarks/eager_limits.py [--launches 5] [--quiet]
    python3 benchmarks/eager_limits.py --direct --launches 100 --quiet   # how often it is right

Configurations: Open MPI's shared memory with btl_vader_eager_limit 4096 and 16384, MPICH
(Debian's, ch4:ucx) as installed and with UCX_RNDV_THRESH=16384. Each launch is `hpceval run
eager` (default sizes and refinement, budget 0.1 s a point) into a scratch database; for Open
MPI, one `hpceval run pingpong` sweep (sizes 512 B..64 KiB, refined) follows, and its bracket
nearest the limit is printed beside. --direct launches the binary itself (default options, no
store, no ping-pong: about 0.6 s a launch) and counts the launches whose bracket lies within
128 B under the limit and is 16 B wide, as tests/comm/test_eager.py asks. The machine is shared
unless --quiet says it was idle."""
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


def direct(bindir: str, env: dict) -> dict:
    """One launch of the binary with its defaults, as a run of one intra-node pair."""
    launcher = ["mpirun", "--allow-run-as-root", "--bind-to", "core"] if bindir == "build" \
        else ["mpiexec.mpich"]
    p = subprocess.run([*launcher, "-np", "2", str(ROOT / bindir / "bin" / "hpceval-eager"),
                        "--budget", "0.1"], capture_output=True, text=True,
                       env={**os.environ, **env})
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    recs = [dict(r, where={"pair_hosts": ["here", "here"]}) for r in recs if r["type"] == "result"]
    if p.returncode or not recs:
        sys.exit(f"hpceval-eager failed: {p.stderr.strip().splitlines()[-1:]}")
    return {"records": recs}


def right(found, limit) -> bool:
    return bool(found and limit and limit - 128 <= found[0].n_before < found[0].n_after <= limit
                and found[0].n_after - found[0].n_before <= 16)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launches", type=int, default=5)
    ap.add_argument("--quiet", action="store_true", help="the machine was idle")
    ap.add_argument("--direct", action="store_true", help="launch the binary, count the right")
    a = ap.parse_args()
    print(f"figures {'quiet' if a.quiet else 'LOADED (machine shared)'}")
    if a.direct:
        for label, bindir, env, limit in CONFIGS:
            finds = [eager_limit(direct(bindir, env), "intra-node") for _ in range(a.launches)]
            brackets = sorted({f"{f[0].n_before}-{f[0].n_after}" if f else "none" for f in finds})
            ok = f"{sum(right(f, limit) for f in finds)} of {a.launches} right" if limit else ""
            print(f"{label}: {ok} brackets {', '.join(brackets)}", flush=True)
        return
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
