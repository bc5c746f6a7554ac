"""Placement of ranks on nodes outside Slurm: `--nodes N --ppn K` with `--hosts` or `--hostfile`.

Ranks are placed K per node, in host order; a launch with fewer ranks uses the first nodes it
fills. The launchers turn the slots into their host lists (`--host h1:K,h2:K`, `-hosts ...`);
this module checks the request, says how each launch binds, and tags the records with where their
ranks ran."""
from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from hpceval.errors import UsageError
from hpceval.infiles import read_regular
from hpceval.limits import MAX_NODES, MAX_PPN, MAX_RANKS, check_count, check_ranks

# Set by `scripts/vcluster exec` on every virtual node. Its nodes share one machine: each node's
# MPI daemon believes it owns every CPU, so an explicit bind-to-core would put the first rank of
# every node on CPU 0. The node's own CPU set binds instead (docs/vcluster.md, pitfall 1). Only
# this variable turns binding off: on a real cluster a binding bug must stay visible.
VCLUSTER_NODE_ENV = "HPCEVAL_VCLUSTER_NODE"

Slots = List[Tuple[str, int]]


@dataclass(frozen=True)
class Placement:
    hosts: Tuple[str, ...]       # the nodes of the run, in placement order
    ppn: int                     # ranks per node

    @property
    def nranks(self) -> int:
        return len(self.hosts) * self.ppn

    def slots(self, nranks: int, ppn: Optional[int] = None) -> Slots:
        """(host, ranks) for a launch of `nranks`: K per node (or its own ppn, fewer: a rung
        its rank rule placed so) on the first nodes it fills."""
        self.check(nranks, ppn)
        per = self.per_node(ppn)
        full, part = divmod(nranks, per)
        return [(h, per) for h in self.hosts[:full]] + (
            [(self.hosts[full], part)] if part else [])

    def check(self, nranks: int, ppn: Optional[int] = None) -> None:
        # without building the slots: a plan's check stays O(launches), not O(nodes) each
        per = self.per_node(ppn)
        if -(-nranks // per) > len(self.hosts):
            raise UsageError(f"a launch of {nranks} ranks does not fit {len(self.hosts)} nodes x "
                             f"{per} ranks per node (raise --nodes or --ppn)")

    def per_node(self, ppn: Optional[int] = None) -> int:
        """A launch's ranks a node: K, or its own where fewer (LaunchSpec.ppn)."""
        return min(ppn or self.ppn, self.ppn)

    def settings(self) -> Dict[str, Any]:
        return {"hosts": list(self.hosts), "nodes": len(self.hosts), "ppn": self.ppn}


MAX_HOSTFILE_BYTES = 64 << 20       # MAX_NODES lines of a long name and slots=N, and comments

# A host name (RFC 1123 labels; '_' too, as some sites name nodes) or an IP address, and on a
# hostfile line Open MPI's slots=N / max_slots=N after it (ignored: the placement is --ppn's).
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_NAME = rf"(?=[^\s#]{{1,253}}(?![^\s#])){_LABEL}(?:\.{_LABEL})*\.?"
_NAME_RE = re.compile(_NAME, re.ASCII)
_SLOTS_RE = re.compile(r"(?:slots|max_slots|max-slots)=([0-9]{1,18})", re.ASCII)
# The grammar of a whole file, searched in one pass: the first line that is not blank, a
# comment or HOST [slots=N]... (a million lines: 5.4 s on a loaded 2-core VM, 16.7 s with a
# match per line)
_BAD_LINE_RE = re.compile(rf"^(?![ \t]*(?:{_NAME}(?:[ \t]+{_SLOTS_RE.pattern})*)?[ \t\r]*"
                          r"(?:#[^\n]*)?$)", re.M | re.ASCII)
_FIRST_WORD_RE = re.compile(r"^[ \t]*([^\s#]+)", re.M)
_VALUE_RE = re.compile(r"=([0-9]+)")
GRAMMAR = "a host name [slots=N] (letters, digits, '-', '.'; or an IP address)"


def is_host(word: str) -> bool:
    if _NAME_RE.fullmatch(word):
        return True
    try:
        return ":" in word and bool(ipaddress.IPv6Address(word))
    except ValueError:
        return False


def host_of_line(words: Sequence[str], where: str) -> str:
    """The host of one hostfile line (its words, comment dropped). A line that is not
    `HOST [slots=N]` is refused naming its number only: the file may be anything (/etc/shadow),
    and an error must not print what it holds."""
    slots = [_SLOTS_RE.fullmatch(w) for w in words[1:]]
    if not is_host(words[0]) or not all(slots):
        raise UsageError(f"{where} is not {GRAMMAR}; not a hostfile?")
    for m in slots:
        check_count(f"{where}: {m.group(0)}", int(m.group(1)), MAX_PPN, "slot")
    return words[0]


def read_hostfile(path: str) -> List[str]:
    """Host names from a hostfile: the first word of each line, '#' comments and Open MPI's
    'slots=' words ignored (the placement is --ppn's). The hosts are counted before a line is
    checked, every line's grammar checked before a name is used."""
    data = read_regular(path, f"--hostfile {path}", MAX_HOSTFILE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"--hostfile {path}: not UTF-8 text; not a list of host names") from None
    if "\0" in text:
        raise UsageError(f"--hostfile {path}: holds NUL bytes; not a list of host names")
    hosts = _FIRST_WORD_RE.findall(text)
    check_count(f"--hostfile {path}", len(hosts), MAX_NODES, "host")
    if _BAD_LINE_RE.search(text) or max(map(int, _VALUE_RE.findall(text)), default=0) > MAX_PPN:
        hosts = _hosts_line_by_line(text, path)     # IPv6, other blanks; or says which line
    if not hosts:
        raise UsageError(f"--hostfile {path}: no host names in it")
    return hosts


def _hosts_line_by_line(text: str, path: str) -> List[str]:
    lines = [(i, line.split("#", 1)[0].split()) for i, line in enumerate(text.splitlines(), 1)]
    return [host_of_line(words, f"--hostfile {path}: line {i}") for i, words in lines if words]


def _host_names(hosts: str) -> List[str]:
    """--hosts h1,h2,...: counted, then each checked as a host name (named by position)."""
    names = [h.strip() for h in hosts.split(",") if h.strip()]
    if not names:
        raise UsageError("--hosts: empty list")
    check_count("--hosts", len(names), MAX_NODES, "host")
    for i, name in enumerate(names, 1):
        if not is_host(name):
            raise UsageError(f"--hosts: item {i} is not a host name (letters, digits, '-', '.'; "
                             "or an IP address)")
    return names


def _host_list(hosts: Optional[str], hostfile: Optional[str]) -> List[str]:
    if hosts is not None and hostfile is not None:
        raise UsageError("--hosts and --hostfile: give one of them")
    names = read_hostfile(hostfile) if hostfile is not None else \
        _host_names(hosts) if hosts is not None else []
    dup = first_duplicate(names)
    if dup is not None:
        raise UsageError(f"host {dup} is listed twice (ranks per node are --ppn's)")
    return names


def first_duplicate(names: Sequence[str]) -> Optional[str]:
    """The first (in sorted order) name listed more than once: linear, a million hosts in
    about a second (names.count per name took minutes at 10^5)."""
    dups = [h for h, n in Counter(names).items() if n > 1]
    return min(dups) if dups else None


def check_resolves(hosts: Sequence[str]) -> None:
    """Every host name must resolve here: a typo is bad input, found before anything runs."""
    for host in hosts:
        try:
            socket.getaddrinfo(host, None)
        except (socket.gaierror, UnicodeError):
            raise UsageError(f"host {host} does not resolve (check --hosts/--hostfile and "
                             "/etc/hosts)") from None


def placement_from_args(nodes: Optional[int], ppn: Optional[int], hosts: Optional[str],
                        hostfile: Optional[str], np: Optional[int],
                        plan_only: bool = False) -> Optional[Placement]:
    """The run's placement from the command line, or None for a one-node run (no host given).
    `plan_only` (--dry-run): --nodes N alone stands for N nodes named node1..nodeN, so that a
    big machine's run can be planned anywhere; nothing is resolved."""
    check_request(nodes, ppn, np)
    names = _host_list(hosts, hostfile)
    if not names and plan_only and nodes is not None:
        names = [f"node{i + 1}" for i in range(nodes)]
    if not names:
        if nodes is not None or ppn is not None:
            raise UsageError("--nodes/--ppn need the nodes: --hosts h1,h2,... or --hostfile F "
                             "(inside Slurm the allocation's nodes are used by srun)")
        return None
    if nodes is not None and nodes > len(names):
        raise UsageError(f"--nodes {nodes}: only {len(names)} host(s) given "
                         f"({', '.join(names[:8])}{', ...' if len(names) > 8 else ''})")
    names = names[:nodes] if nodes is not None else names
    per = ppn if ppn is not None else _ppn_from_np(np, len(names))
    check_ranks(f"{len(names):,} hosts x --ppn {per}", len(names), per)
    place = Placement(tuple(names), per)
    if np is not None and np != place.nranks:
        raise UsageError(f"--np {np} is not --nodes {len(names)} x --ppn {per} = {place.nranks}")
    if not plan_only:
        check_resolves(names)
    return place


def check_request(nodes: Optional[int], ppn: Optional[int], np: Optional[int]) -> None:
    """--nodes, --ppn and --np within their caps, and N x K within MAX_RANKS: checked before
    anything of their size is built (a host list, a plan, a simulated platform's hosts)."""
    check_count(f"--ppn {ppn}", ppn, MAX_PPN, "rank per node")
    check_count(f"--nodes {nodes}", nodes, MAX_NODES, "node")
    check_count(f"--np {np}", np, MAX_RANKS, "rank")
    if nodes is not None and ppn is not None:
        check_ranks(f"--nodes {nodes} --ppn {ppn}", nodes, ppn)


def _ppn_from_np(np: Optional[int], nodes: int) -> int:
    if np is None:
        return 1
    if np % nodes:
        raise UsageError(f"--np {np} does not split evenly over {nodes} nodes: give --ppn")
    return np // nodes


def binding(bind: str, slots: Slots) -> Tuple[str, Optional[str]]:
    """The binding a launch asks the MPI runtime for, and a warning when it differs from the
    plan's: on a virtual cluster's nodes across several nodes, none (the node's CPU set binds)."""
    if bind != "none" and len(slots) > 1 and os.environ.get(VCLUSTER_NODE_ENV):
        return "none", ("binding left to the virtual cluster's per-node CPU sets "
                        f"({VCLUSTER_NODE_ENV} is set; docs/vcluster.md pitfall 1)")
    return bind, None


def tag_records(records: List[Dict[str, Any]], meta: Optional[Dict[str, Any]],
                emulated: bool) -> None:
    """Each result record gets where its ranks ran: the launch's nodes, whether node placement
    was real (ranks on different hosts) or emulated (ranks-per-node on one host), and the hosts
    of a rank pair 'A-B' when the record names one."""
    hosts = list((meta or {}).get("hosts") or [])
    cpus = list((meta or {}).get("cpus") or [])
    nodes = list(dict.fromkeys(hosts))
    kind = "emulated" if emulated else ("real" if len(nodes) > 1 else "one node")
    if os.environ.get("HPCEVAL_SIMULATION"):     # SimGrid SMPI's hosts (docs/simulate.md)
        kind = "simulated"
    for rec in records:
        where: Dict[str, Any] = {"nodes": nodes, "placement": kind}
        pair = _pair(rec.get("params") or {}, len(hosts))
        if pair:
            where["pair_hosts"] = [hosts[r] for r in pair]
            where["pair_cpus"] = [cpus[r] for r in pair] if len(cpus) == len(hosts) else []
        rec["where"] = where


def _pair(params: Dict[str, Any], nranks: int) -> Optional[Tuple[int, int]]:
    text = str(params.get("ranks") or "")
    a, sep, b = text.partition("-")
    if not sep or not (a.isdigit() and b.isdigit()):
        return None
    pair = (int(a), int(b))
    return pair if max(pair) < nranks else None


def emulates_nodes(args: Sequence[str]) -> bool:
    """The launch emulates nodes on one host (ranks-per-node > 0)."""
    args = list(args)
    for i, a in enumerate(args[:-1]):
        if a == "--ranks-per-node":
            return args[i + 1] not in ("0", "")
    return any(a.startswith("--ranks-per-node=") and a.split("=", 1)[1] not in ("0", "")
               for a in args)


def launch_command(launcher, place: Optional[Placement], nranks: int, argv: List[str],
                   bind: str, env: Dict[str, str],
                   ppn: Optional[int] = None) -> Tuple[List[str], List[str]]:
    """The command of one launch and its warnings (oversubscription, binding); env gets
    HPCEVAL_OVERSUBSCRIBED when a node has more ranks than cores (set before the command is
    built, so that remote ranks see it too). Without a placement the launcher places ranks
    itself (this host, or Slurm's allocation); `ppn`: the launch's own ranks a node, fewer
    than the placement's (LaunchSpec.ppn)."""
    slots = place.slots(nranks, ppn) if place else []
    bind, note = binding(bind, slots)
    per_node = launcher.per_node(nranks, slots)
    notes = [note] if note else []
    if launcher.oversubscribed(per_node):
        env["HPCEVAL_OVERSUBSCRIBED"] = "1"   # the harness notes it in its records
        notes.insert(0, f"{per_node} ranks on {launcher.cores} cores"
                        f"{' per node' if slots else ''}: oversubscribed, timings are disturbed")
    if slots:
        return launcher.command(nranks, argv, bind, env, slots=slots), notes
    return launcher.command(nranks, argv, bind, env), notes


def check_plan(launcher, place: Optional[Placement], sizes: Sequence[int]) -> None:
    """Before anything runs: the launcher can place ranks on hosts and every launch fits."""
    if place is None:
        return
    launcher.host_args(place.slots(1))
    for n in sizes:
        place.check(n)
