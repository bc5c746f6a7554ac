"""An OTF2 archive (Vampir, Score-P's tools, otf2-print) of a merged trace (merge.merge_dir's
Chrome trace, so the raw files are read once): one location per rank, a region per phase and
per MPI call, Enter/Leave per slice, and MpiSend/MpiRecv message events (sender, receiver,
size, tag) from the point-to-point calls. docs/trace.md.

Messages: a send is its call's begin, a receive its call's end. MPI_Irecv's message is put at
the Irecv call (its completion, in some MPI_Wait*, is not traced per request); calls without a
known partner or tag (MPI_ANY_SOURCE irecvs, MPI_Sendrecv, whose receive side is not recorded)
get regions only."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

from hpceval.errors import UsageError
from hpceval.trace.chrome import tracks

SENDS = frozenset(("MPI_Send", "MPI_Isend", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend", "MPI_Issend"))
RECVS = frozenset(("MPI_Recv", "MPI_Irecv"))
_COLLECTIVE_ROLES = {"Barrier": "BARRIER", "Bcast": "COLL_ONE2ALL", "Scatter": "COLL_ONE2ALL",
                     "Scatterv": "COLL_ONE2ALL", "Gather": "COLL_ALL2ONE",
                     "Gatherv": "COLL_ALL2ONE", "Reduce": "COLL_ALL2ONE"}


def otf2_module():
    """The `otf2` package, or one line saying how to get it."""
    try:
        import otf2
    except ImportError:
        raise UsageError("--format otf2 needs the otf2 Python package: pip install otf2 "
                         "(or pip install 'hpceval[otf2]')") from None
    return otf2


def check_target(path: str | Path) -> Path:
    """An archive is a directory written whole: an existing one is refused, not merged into."""
    p = Path(path)
    if p.exists() or p.is_symlink():
        raise UsageError(f"-o {p}: already exists; OTF2 writes a new directory (remove it or "
                         "choose another)")
    parent = p.resolve().parent
    if not parent.is_dir():
        raise UsageError(f"-o {p}: directory {parent} does not exist")
    otf2_module()
    return p


def _role(otf2, name: str):
    roles = otf2.enums.RegionRole
    if name in SENDS | RECVS or name.startswith(("MPI_Sendrecv", "MPI_Probe", "MPI_Iprobe")):
        return roles.POINT2POINT
    short = name[4:].lstrip("I").capitalize() if name.startswith("MPI_I") else name[4:]
    if short in _COLLECTIVE_ROLES:
        return getattr(roles, _COLLECTIVE_ROLES[short])
    if short.startswith(("All", "Reduce_scatter", "Scan", "Exscan", "Neighbor")):
        return roles.COLL_ALL2ALL
    return roles.FUNCTION


def _ns(us: float) -> int:
    return int(round(us * 1000.0))


def _rank_events(evs: List[dict]) -> List[Tuple[int, str, dict]]:
    """(time ns, "enter"|"leave"|"send"|"recv", slice) in time order, properly nested: a slice
    ending past its parent (rounding, within the Chrome check's tolerance) ends with it."""
    out: List[Tuple[int, str, dict]] = []
    stack: List[Tuple[int, dict]] = []
    now = 0

    def close_until(t: int) -> None:
        nonlocal now
        while stack and stack[-1][0] <= t:
            end, ev = stack.pop()
            now = max(now, end)
            if ev["name"] in RECVS and _is_message(ev):
                out.append((now, "recv", ev))
            out.append((now, "leave", ev))

    for ev in evs:
        begin, end = _ns(ev["ts"]), _ns(ev["ts"] + ev["dur"])
        close_until(begin)
        now = max(now, begin)
        if stack:
            end = min(end, stack[-1][0])
        out.append((now, "enter", ev))
        if ev["name"] in SENDS and _is_message(ev):
            out.append((now, "send", ev))
        stack.append((max(end, now), ev))
    close_until(2 ** 63)
    return out


def _is_message(ev: dict) -> bool:
    args = ev.get("args") or {}
    return ev.get("cat") == "mpi" and "peer" in args and "tag" in args


def _definitions(otf2, archive, trace: dict):
    """Locations (one per rank, in a process per rank, under its host), MPI_COMM_WORLD."""
    defs = archive.definitions
    od = trace["otherData"]
    root = defs.system_tree_node("machine")
    hosts: Dict[str, object] = {}
    locations = []
    for rank in range(od["nranks"]):
        host = (od.get("hosts") or ["unknown host"] * od["nranks"])[rank]
        if host not in hosts:
            hosts[host] = defs.system_tree_node(host, parent=root)
        group = defs.location_group(f"rank {rank}", system_tree_parent=hosts[host])
        locations.append(defs.location(f"rank {rank}", group=group))
    enums = otf2.enums
    defs.group("MPI locations", group_type=enums.GroupType.COMM_LOCATIONS,
               paradigm=enums.Paradigm.MPI, members=locations)
    world = defs.group("MPI_COMM_WORLD", group_type=enums.GroupType.COMM_GROUP,
                       paradigm=enums.Paradigm.MPI, members=locations)
    return locations, defs.comm("MPI_COMM_WORLD", group=world)


def _write(otf2, archive_dir: Path, trace: dict) -> None:
    with otf2.writer.open(str(archive_dir), timer_resolution=1_000_000_000) as archive:
        locations, comm = _definitions(otf2, archive, trace)
        regions: Dict[str, object] = {}

        def region(ev: dict):
            if ev["name"] not in regions:
                mpi = ev.get("cat") == "mpi"
                regions[ev["name"]] = archive.definitions.region(
                    ev["name"], paradigm=otf2.enums.Paradigm.MPI if mpi else otf2.enums.Paradigm.USER,
                    region_role=_role(otf2, ev["name"]) if mpi else otf2.enums.RegionRole.CODE)
            return regions[ev["name"]]

        for rank, evs in tracks(trace).items():
            writer = archive.event_writer_from_location(locations[rank])
            for t, what, ev in _rank_events(evs):
                args = ev.get("args") or {}
                if what == "enter":
                    writer.enter(t, region(ev))
                elif what == "leave":
                    writer.leave(t, region(ev))
                elif what == "send":
                    writer.mpi_send(t, args["peer"], comm, args["tag"], args.get("bytes", 0))
                else:
                    writer.mpi_recv(t, args["peer"], comm, args["tag"], args.get("bytes", 0))


def write_otf2(trace: dict, target: str | Path) -> Path:
    """Write the archive into the new directory `target` (traces.otf2, traces.def, traces/):
    built beside it and renamed into place, so a failure leaves nothing."""
    otf2 = otf2_module()
    target = Path(target)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.resolve().parent))
    try:
        _write(otf2, work / "archive", trace)
        os.rename(work / "archive", target)
    except OSError as exc:
        raise UsageError(f"-o {target}: cannot write: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target / "traces.otf2"
