#!/usr/bin/env python3
"""What SimGrid's SMPI costs in wall time a simulated message, against the ranks, for one or
more SimGrid installations (docs/simulate.md, "SimGrid's own cost"; hpceval/simulate/cost.py's
growth a rank comes from it). benchmarks/smpi_message_cost.c is built with each SimGrid's smpicc
and run under its smpirun on a flat cluster of 16 ranks a host, with the settings hpceval's
simulated runs use (MPICH's collectives, a 64 KiB eager limit, no computation charged): 8 B
halo exchanges (8 messages a rank) and 8 B allreduces, N of each, the wall time of smpirun less
that of a launch that does nothing.

    python3 benchmarks/smpi_message_cost.py                                # Debian's SimGrid
    python3 benchmarks/smpi_message_cost.py --simgrid /usr/bin,/opt/simgrid-4.1/bin \\
        --ranks 64,256,1024

Markdown on stdout. The simulated seconds must agree between SimGrids (said when they do not)."""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PPN = 16
CFG = ["--cfg=smpi/host-speed:10Gf", "--cfg=smpi/coll-selector:mpich",
       "--cfg=smpi/async-small-thresh:65536", "--cfg=smpi/send-is-detached-thresh:65536",
       "--cfg=smpi/simulate-computation:no", "--log=root.thres:critical"]
HALO_MESSAGES = 8          # a rank's, per exchange


def platform(where: Path, ranks: int) -> tuple:
    nodes = max(ranks // PPN, 1)
    xml = where / f"flat-{nodes}.xml"
    xml.write_text(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
        "<platform version=\"4.1\">\n  <cluster id=\"c\" prefix=\"node-\" suffix=\".sim\" "
        f"radical=\"0-{nodes - 1}\" speed=\"1e+10f\" core=\"{PPN}\" bw=\"1.25e+10Bps\" "
        "lat=\"7.5e-07s\" loopback_bw=\"2e+10Bps\" loopback_lat=\"3e-07s\" "
        "sharing_policy=\"SPLITDUPLEX\"/>\n</platform>\n")
    hosts = where / f"hosts-{ranks}.txt"
    hosts.write_text("".join(f"node-{i // PPN}.sim\n" for i in range(ranks)))
    return xml, hosts


def launch(bindir: Path, prog: Path, ranks: int, n: int, what: str, where: Path) -> tuple:
    xml, hosts = platform(where, ranks)
    start = time.monotonic()
    p = subprocess.run([str(bindir / "smpirun"), "-np", str(ranks), "-platform", str(xml),
                        "-hostfile", str(hosts), *CFG, str(prog), str(n), what],
                       capture_output=True, text=True, timeout=3600)
    wall = time.monotonic() - start
    m = re.search(r"simulated_s=([0-9.e+-]+)", p.stdout)
    if p.returncode != 0 or m is None:
        sys.exit(f"smpi_message_cost: {bindir}/smpirun failed at {ranks} ranks: "
                 f"{(p.stderr.strip().splitlines() or ['no output'])[-1]}")
    return wall, float(m.group(1))


def version(bindir: Path) -> str:
    out = subprocess.run([str(bindir / "smpicc"), "--version"], capture_output=True, text=True)
    return (out.stdout.strip().splitlines() or ["SimGrid ?"])[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--simgrid", default="/usr/bin",
                    help="comma-separated directories holding smpicc and smpirun")
    ap.add_argument("--ranks", default="64,256,1024")
    ap.add_argument("--n", type=int, default=200, help="exchanges and allreduces a launch")
    args = ap.parse_args()
    ranks = [int(r) for r in args.ranks.split(",")]
    rows, simulated = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        for i, d in enumerate(Path(x) for x in args.simgrid.split(",")):
            prog = where / f"cost{i}"
            subprocess.run([str(d / "smpicc"), "-O2", "-o", str(prog),
                            str(HERE / "smpi_message_cost.c")], check=True, capture_output=True)
            name = version(d)
            for r in ranks:
                idle, _ = launch(d, prog, r, 0, "none", where)
                for what in ("halo", "allreduce"):
                    wall, sim = launch(d, prog, r, args.n, what, where)
                    simulated.setdefault((what, r), set()).add(round(sim, 12))
                    net = max(wall - idle, 0.0)
                    per = net / (args.n * r * HALO_MESSAGES) * 1e6 if what == "halo" else None
                    rows.append((name, r, what, wall, idle, net, per, sim))
    print("| SimGrid | ranks | loop | wall [s] | start-up [s] | net [s] | us a message | "
          "simulated [s] |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r, what, wall, idle, net, per, sim in rows:
        print(f"| {name} | {r} | {what} | {wall:.2f} | {idle:.2f} | {net:.2f} | "
              f"{'' if per is None else f'{per:.1f}'} | {sim:.9f} |")
    differ = [k for k, v in simulated.items() if len(v) > 1]
    if differ:
        print(f"\nsimulated times differ between SimGrids: {differ}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
