"""The machine card's rows per memory home (hpceval/analysis/numa.py): load latency and read
bandwidth of the CPU's own home and of the nearest remote one, the read of an array larger
than the local memory (EV7 Table 2.1's "Remote memory" row, Fig. 2.6), and EV7 section 6's
comparison of the 8 B MPI latency with the memory latency (what the MPI software adds). On a
machine with one home the remote rows say so."""
from hpceval.analysis.card import CardRow, Cell, register_card_row
from hpceval.analysis.headlines import size_label, value
from hpceval.analysis.numa import (ONE_HOME, beyond_local, cycles, homes, local_home,
                                   memory_beside_mpi, nearest_remote, nominal_mhz, where)
from hpceval.quality import field

SECTION = "Memory per home (NUMA)"


def _in_cycles(run, ns) -> str:
    c = cycles(run, ns)
    return f"; {c:.0f} cycles at {nominal_mhz(run)[0]:.0f} MHz nominal" if c else (
        "; ns only: no nominal clock")


def _home(pick, kind):
    """A home's figure at its largest size; a remote row on a one-home machine says so."""
    def get(run):
        h = pick(run, kind)
        if h is None:
            return Cell(ONE_HOME, "fingerprint: 1 NUMA node") if (
                pick is nearest_remote and homes(run) == 1 and local_home(run, kind)) else None
        extra = _in_cycles(run, h["value"]) if kind == "latency" else ""
        return Cell(h["value"], where(h) + extra, h["record"])
    return get


def _beyond(run):
    recs = beyond_local(run)
    if not recs:
        return Cell(ONE_HOME, "fingerprint: 1 NUMA node") if homes(run) == 1 and local_home(
            run, "bandwidth") else None
    top = recs[-1]
    return Cell(value(top), f"{size_label(top['params']['bytes'])}, "
                f"{100 * field(top, 'local_share'):.0f}% of the pages on the CPU's home", top)


def _beside(key, fmt):
    def get(run):
        m = memory_beside_mpi(run)
        return m and Cell(m[key], fmt(m))
    return get


def _said(m) -> str:
    return (f"8 B ping-pong {m['mpi_us']:.3g} us ({m['mpi_point']}); memory {m['mem_ns']:.3g} ns, "
            f"{m['what']}")


for _row in (
        CardRow(SECTION, "Latency, local home", "ns", _home(local_home, "latency")),
        CardRow(SECTION, "Latency, nearest remote home", "ns", _home(nearest_remote, "latency")),
        CardRow(SECTION, "Read bandwidth, local home", "GB/s", _home(local_home, "bandwidth")),
        CardRow(SECTION, "Read bandwidth, nearest remote home", "GB/s",
                _home(nearest_remote, "bandwidth")),
        CardRow(SECTION, "Read bandwidth, array larger than the local memory", "GB/s", _beyond)):
    register_card_row(_row._replace(order=10))

_MPI = "Messages against memory (EV7 section 6)"
for _row in (CardRow(_MPI, "8 B MPI latency / memory latency", "x", _beside("ratio", _said)),
             CardRow(_MPI, "MPI software's share (MPI latency - memory latency)", "us",
                     _beside("difference_us", _said))):
    register_card_row(_row._replace(order=20))
