"""A run on a simulated platform: the platform written (or read) and kept, checked by SimGrid
itself, and made the run's: `HPCEVAL_SIMULATION` names the directory that holds the platform
file, the hostfile and simulation.json (what the launcher, the planner and the fingerprint read).

Everything here happens before a run opens: a platform SimGrid rejects, a bad description, more
ranks than the hosts allow, no smpirun or no SMPI build is one line and exit 2."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from hpceval import paths
from hpceval.errors import UsageError
from hpceval.infiles import read_text
from hpceval.simulate.platform import (Description, Platform, allocation, hosts_of,
                                       parse_description)

ENV = "HPCEVAL_SIMULATION"
# The speed this host's computation is taken to run at: SMPI charges a computation burst's real
# duration x HOST_SPEED / the simulated core's flops.
HOST_SPEED = "10Gf"
# Computation bursts shorter than this (the harness's own bookkeeping between MPI calls) are
# not charged: without it a timed loop picks up the host's noise.
CPU_THRESHOLD = "1e-5"
# Allocations from this size up are shared by the ranks (SMPI_SHARED_MALLOC): hundreds of ranks
# fit in memory, the data they exchange is not what they wrote. Only for the communication
# benchmarks, whose buffers are messages: a proxy computes with its arrays (its checks fail).
SHARED_MALLOC = str(1 << 20)
SHARED_MALLOC_BINARIES = frozenset(f"hpceval-{b}" for b in (
    "pingpong", "p2p", "loggp", "distance", "hotspot", "random2", "collectives", "halo",
    "netmap", "bisection", "congestion"))
# Binaries that compute nothing between their MPI calls but bookkeeping: no computation charged
# at all, so simulated time is the network model's alone. With charging, a burst over
# CPU_THRESHOLD (a preempted rank on a loaded host) moved an ideal 8 B ping-pong by 3%.
# halo is not one of them: its packing is computation its methods differ by.
# nodecheck charges its kernels' work itself (smpi_execute_flops at the host's speed): its
# simulated rates are the platform's, never this host's load. msgrate, rma and eager keep their
# own buffers (their data is checked) and compute nothing either: charged, a point's samples
# varied with this host and ran to max-reps (msgrate 173 samples a point, rma 45: 130 and 198 s
# of the comm suite at 1,024 simulated ranks).
NO_COMPUTE_BINARIES = ((SHARED_MALLOC_BINARIES - {"hpceval-halo"})
                       | {"hpceval-nodecheck", "hpceval-msgrate", "hpceval-rma", "hpceval-eager"})
# The collectives' algorithms as MPICH selects them. SMPI's default allgather posts all P - 1
# sends and receives and waits for them one at a time (O(P^2) simulator work per rank): the one
# MPI_Allgather of p2p's and distance's setup took 88 s at 128 ranks and over 12 minutes at 256
# (3 s and 11 s with MPICH's); its default allreduce is a reduce then a bcast, twice the steps of
# the recursive doubling a real MPI uses for small messages.
COLL_SELECTOR = "mpich"
SELECTOR_CFG = "--cfg=smpi/coll-selector:"
# Messages up to this size start their transfer when sent, as a real MPI's eager protocol does
# (Open MPI's TCP eager limit, 64 KiB; MPICH ch3's 128 KiB; SMPI's own detached-send limit,
# smpi/send-is-detached-thresh, 64 KiB). SMPI's default, 0, starts a small message only when its
# receive is posted: a 4 x 4 sweep launch took 144.0 us per iteration instead of 39.2 us.
# A description's `eager=` sets it (docs/simulate.md), as a test plants its answer.
EAGER_THRESH = Description.eager
# SimGrid's sharing solver takes less than this as nothing (its default 1e-5). At the default,
# nbc at 128 simulated ranks stopped SimGrid 4.1 ("Cannot saturate more a constraint that has no
# active element": a constraint's usage of 1.8e-5) and crashed 3.32 (SIGSEGV); at 1e-4 both run
# on, and nbc's times at 16 ranks move no more than from one run to the next. 3.32 names it
# maxmin/precision, 4.x precision/work-amount.
WORK_PRECISION = "1e-4"
MODEL_CFG = {"ideal": ["--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1"], "smpi": []}
COMPUTE_CFG = {"charged": [], "none": ["--cfg=smpi/simulate-computation:no"]}


def active() -> Optional[Dict[str, Any]]:
    """The simulation of this process's run (simulation.json), or None."""
    where = os.environ.get(ENV)
    if not where:
        return None
    try:
        return json.loads((Path(where) / "simulation.json").read_text())
    except (OSError, ValueError):
        raise UsageError(f"{ENV}={where}: not a simulated platform directory") from None


def simulated_allocation() -> Optional[Dict[str, Any]]:
    """nodes, ppn, cores_per_node, memory_bytes (and the platform's name) of the active
    simulation, for planning; None on a real machine."""
    sim = active()
    return None if sim is None else dict(sim["allocation"])


PLATFORM_LIMIT = 64 << 20      # a platform file of 10^5 hosts is a few MiB


def _from_twin(path: str, twin, nodes: Optional[int], ppn: Optional[int]) -> Platform:
    """A twin's platform for --nodes N (its own count by default): the topology grows with N."""
    from hpceval.simulate.twin import config_cfg, twin_xml
    twin = twin.for_nodes(nodes or twin.description.nodes)
    d = twin.description
    return Platform(twin_xml(twin), [f"node-{i}.sim" for i in range(d.nodes)], ppn or d.ppn,
                    f"twin-{d.topology}-{d.nodes}", description=d, source=str(path),
                    cfg=config_cfg(twin.config), twin=twin.source)


def _from_file(path: str, ppn: Optional[int], nodes: Optional[int] = None) -> Platform:
    from hpceval.simulate.twin import read_twin
    xml = read_text(path, f"--platform {path}", PLATFORM_LIMIT)   # never /dev/zero or a FIFO
    try:
        twin = read_twin(xml, f"--platform {path}")
    except UsageError:
        raise
    except Exception as exc:           # ElementTree's ParseError
        raise UsageError(f"--platform {path}: not a SimGrid platform file ({exc})") from None
    if twin is not None:
        return _from_twin(path, twin, nodes, ppn)
    try:
        hosts, cores = hosts_of(xml)
    except UsageError as exc:          # beyond a cap (hpceval/limits.py): said as it is
        raise UsageError(f"--platform {path}: {exc}") from None
    except Exception as exc:           # ElementTree's ParseError, a bad radical
        raise UsageError(f"--platform {path}: not a SimGrid platform file ({exc})") from None
    if not hosts:
        raise UsageError(f"--platform {path}: declares no hosts (<host> or <cluster>)")
    return Platform(xml, hosts, ppn or cores or 1, f"{Path(path).stem}", source=str(path),
                    cfg=eager_cfg(EAGER_THRESH))


def eager_cfg(limit: int) -> List[str]:
    """Messages below `limit` bytes sent eagerly: their transfer starts when sent
    (async-small-thresh) and MPI_Send returns at once (send-is-detached-thresh); from it up the
    transfer waits for the receive, as a rendezvous does."""
    return [f"--cfg=smpi/async-small-thresh:{limit}", f"--cfg=smpi/send-is-detached-thresh:{limit}"]


def model_cfg(d) -> List[str]:
    """The network model's factors. A rendezvous' handshake (model=ideal) is its latency factor
    from the eager limit up: 1 + handshake one-way latencies. SimGrid 3.32 applies a factor to
    sizes over its key less 16 (key 4000: from 3985 B; 100, 1000, 65536 alike), hence eager + 15:
    the ping-pong steps where the late receive does (tests/simulate/test_protocols.py)."""
    if not d.handshake:
        return MODEL_CFG[d.model]
    return [MODEL_CFG["ideal"][0], f"--cfg=smpi/lat-factor:0:1;{d.eager + 15}:{1 + d.handshake}"]


def _from_description(text: str) -> Platform:
    from hpceval.simulate.topology import platform_xml
    d = parse_description(text)
    name = f"{d.topology}-{d.nodes}x{d.ppn}"
    return Platform(platform_xml(d), [f"node-{i}.sim" for i in range(d.nodes)], d.ppn, name,
                    description=d, cfg=eager_cfg(d.eager) + model_cfg(d) + COMPUTE_CFG[d.compute])


def platform_from_args(simulate: Optional[str], platform: Optional[str],
                       nodes: Optional[int], ppn: Optional[int]) -> Optional[Platform]:
    if simulate is None and platform is None:
        return None
    if simulate is not None and platform is not None:
        raise UsageError("--simulate and --platform: give one of them")
    if ppn is not None and ppn < 1:
        raise UsageError(f"--ppn {ppn}: need at least 1 rank per node")
    if platform is not None:
        plat = _from_file(platform, ppn, nodes)
    else:
        if ppn is not None or nodes is not None:
            raise UsageError("--simulate describes the nodes: give nodes= and ppn= there")
        plat = _from_description(simulate)
    if nodes is not None:
        if not 1 <= nodes <= len(plat.hosts):
            raise UsageError(f"--nodes {nodes}: the platform has {len(plat.hosts)} hosts")
        plat.hosts = plat.hosts[:nodes]
    return plat


def _write(plat: Platform) -> Path:
    """The platform's directory under the data directory, named by its content (kept: the
    fingerprint names it, a later run on the same platform finds it)."""
    cfg = [f"--cfg=smpi/host-speed:{HOST_SPEED}", f"--cfg=smpi/cpu-threshold:{CPU_THRESHOLD}",
           f"{SELECTOR_CFG}{COLL_SELECTOR}", *plat.cfg]
    digest = hashlib.sha256((plat.xml + "\n".join(plat.hosts) + str(plat.ppn)
                             + " ".join(cfg)).encode()).hexdigest()[:12]
    plat.name = f"{re.sub(r'[^A-Za-z0-9._-]', '_', plat.name)[:40]}-{digest}"
    where = paths.data_dir() / "simulated" / plat.name
    where.mkdir(parents=True, exist_ok=True)
    (where / "platform.xml").write_text(plat.xml)
    with open(where / "hosts.txt", "w") as f:     # a host at a time: memory O(ppn), not O(ranks)
        f.writelines(f"{h}\n" * plat.ppn for h in plat.hosts)
    info = {"name": plat.name, "platform_file": str(where / "platform.xml"),
            "hostfile": str(where / "hosts.txt"), "source": plat.source,
            "description": plat.description.settings() if plat.description else None,
            "nodes": len(plat.hosts), "ppn": plat.ppn, "cfg": cfg,
            "allocation": allocation(plat), "twin": plat.twin, "sha256": hashlib.sha256(plat.xml.encode()).hexdigest()}
    (where / "simulation.json").write_text(json.dumps(info, indent=1) + "\n")
    return where


def launch_cfg(sim: Dict[str, Any], argv: List[str], nranks: int) -> List[str]:
    """The SimGrid options of one launch: the platform's, shared large buffers for the
    communication benchmarks, and no computation charged to those that compute nothing. A
    one-rank launch keeps MPICH's selection: SimGrid 3.32's Open MPI one (a twin of an Open MPI
    run) aborts in MPI_Reduce on a one-rank MPI_COMM_WORLD ("Actor pid=-1 is gone??", from
    reduce__ompi_binary), and one rank runs no collective algorithm anyway."""
    name = Path(argv[0]).name if argv else ""
    cfg = [c for c in sim["cfg"] if nranks > 1 or not c.startswith(SELECTOR_CFG)]
    if len(cfg) < len(sim["cfg"]):
        cfg.append(f"{SELECTOR_CFG}{COLL_SELECTOR}")
    return (cfg + precision_cfg(Path(argv[0]).parent if argv else None)
            + ([f"--cfg=smpi/auto-shared-malloc-thresh:{SHARED_MALLOC}"]
               if name in SHARED_MALLOC_BINARIES else [])
            + (COMPUTE_CFG["none"] if name in NO_COMPUTE_BINARIES
               and COMPUTE_CFG["none"][0] not in sim["cfg"] else []))


def precision_cfg(bindir: Optional[Path]) -> List[str]:
    """WORK_PRECISION under the name the build's SimGrid knows (none where its version is not
    known: a launch without a binary)."""
    m = re.search(r"SimGrid version (\d+)\.", str(_buildinfo(bindir).get("compiler") or "")
                  if bindir is not None else "")
    if not m:
        return []
    name = "precision/work-amount" if int(m.group(1)) >= 4 else "maxmin/precision"
    return [f"--cfg={name}:{WORK_PRECISION}"]


def _buildinfo(bindir: Path) -> Dict[str, Any]:
    try:
        info = json.loads((bindir / "buildinfo.json").read_text())
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def _flavour(bindir: Path) -> Optional[str]:
    return _buildinfo(bindir).get("mpi")


def simgrid_bin(bindir: Path) -> Optional[Path]:
    """The directory of the smpicc an SMPI build was compiled with, where that build named it by
    path and its smpirun is beside it (a SimGrid of its own, scripts/build-simgrid.sh); None:
    the smpicc on PATH."""
    cc = str(_buildinfo(bindir).get("cc") or "")
    where = Path(cc).parent if os.sep in cc else None
    return where if where is not None and (where / "smpirun").is_file() else None


def use_simgrid_of(bindir: Path) -> None:
    """Launch the build's binaries with its own SimGrid's smpirun: a binary compiled by one
    SimGrid's smpicc does not run under another's smpirun. Its directory goes first on PATH,
    which this run's launches, calibration and platform check all search."""
    where = simgrid_bin(bindir)
    if where is not None:
        os.environ["PATH"] = os.pathsep.join([str(where), os.environ.get("PATH", "")])


def smpi_bindir() -> Path:
    """The SMPI build a simulated run uses: the current build when it is one (HPCEVAL_BINDIR,
    --build), else the named build 'smpi'."""
    if _flavour(paths.bin_dir()) == "smpi":
        return paths.bin_dir()
    from hpceval.buildvariants import build_dir
    named = build_dir("smpi") / "bin"
    if _flavour(named) == "smpi":
        return named
    raise UsageError(f"{paths.bin_dir()} is not an SMPI build and there is no named build "
                     "'smpi': make it with 'hpceval build --name smpi' (SimGrid's smpicc, "
                     "Debian libsimgrid-dev)")


def _first_error(text: str) -> str:
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [re.sub(r"^\[[^]]*\]\s*(\S+:\d+:\s*)?(\[[^]]*\]\s*)?", "", l) for l in lines
              if "ERROR]" in l or "CRITICAL]" in l or "rror" in l]
    return (errors or lines or ["no output"])[0][:200]


def check_with_simgrid(info: Dict[str, Any], bindir: Path, timeout_s: float = 120) -> None:
    """SimGrid loads the platform and runs one tiny launch on its first host: a platform it
    rejects is found here, before the run opens."""
    probe = [str(bindir / "hpceval-collectives"), "--ops", "barrier", "--sizes", "8",
             "--warmup", "0", "--min-reps", "1", "--max-reps", "1", "--budget", "0.001"]
    argv = ["smpirun", "-np", "1", "-platform", info["platform_file"], "-hostfile",
            info["hostfile"], *launch_cfg(info, probe, 1), "--log=root.thres:error", *probe]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise UsageError(f"SimGrid did not load platform {info['source'] or info['name']} in "
                         f"{timeout_s:.0f} s") from None
    if proc.returncode != 0 or '"type": "end"' not in proc.stdout:
        raise UsageError(f"SimGrid rejects platform {info['source'] or info['platform_file']}: "
                         f"{_first_error(proc.stderr + proc.stdout)}")


def placement(info: Dict[str, Any], np: Optional[int]) -> Tuple[Tuple[str, ...], int]:
    """The run's placement on the simulated hosts, (hosts, ranks per host) as the runner's
    Placement takes them: K ranks per host, in order; --np N takes the first N / K hosts
    (fewer than K: one host)."""
    with open(info["hostfile"]) as f:             # streamed: memory O(hosts), not O(ranks)
        hosts: List[str] = [l.rstrip("\n") for i, l in enumerate(f) if i % info["ppn"] == 0]
    nodes, ppn = info["nodes"], info["ppn"]
    if np is None:
        return tuple(hosts), ppn
    if np < 1 or np > nodes * ppn:
        raise UsageError(f"--np {np}: the simulated platform has {nodes} hosts x {ppn} ranks "
                         f"per host = {nodes * ppn} ranks")
    if np <= ppn:
        return tuple(hosts[:1]), np
    if np % ppn:
        raise UsageError(f"--np {np} is not a whole number of simulated hosts of {ppn} ranks")
    return tuple(hosts[:np // ppn]), ppn


def prepare(simulate: Optional[str], platform: Optional[str], nodes: Optional[int],
            ppn: Optional[int], np: Optional[int], plan_only: bool = False):
    """For `hpceval run --simulate/--platform`: the run's placement on the simulated hosts
    (hosts, ranks per host), with the platform written, checked and made active (this process and its launches); None
    for a run on this machine."""
    plat = platform_from_args(simulate, platform, nodes, ppn)
    if plat is None:
        return None
    bindir = None if plan_only else smpi_bindir()
    if bindir is not None:
        use_simgrid_of(bindir)
    if not plan_only and not shutil.which("smpirun"):
        raise UsageError("smpirun not found on PATH: install SimGrid (Debian libsimgrid-dev; "
                         "docs/simulate.md)")
    where = _write(plat)
    info = json.loads((where / "simulation.json").read_text())
    place = placement(info, np)
    if bindir is not None:
        check_with_simgrid(info, bindir)
        os.environ["HPCEVAL_BINDIR"] = str(bindir)
    os.environ[ENV] = str(where)
    return place


def fingerprint_fields() -> Dict[str, Any]:
    """What a simulated run's fingerprint adds: the platform (its name, description or source
    file, the hosts, the SMPI settings and the platform file itself)."""
    sim = active()
    if sim is None:
        return {}
    xml = Path(sim["platform_file"]).read_text()
    keep = ("name", "source", "description", "nodes", "ppn", "cfg", "twin", "sha256")
    return {"simulated": {**{k: sim.get(k) for k in keep}, "platform_xml": xml}}
