"""Memory per home (NUMA) figures and tables (hpceval/analysis/numa.py): read bandwidth vs array
size with the memory on each home, and the first-touch read of arrays larger than the local
memory (EV7 Fig. 2.6); load latency vs working set per home (EV7 Fig. 2.1), with a cycles
axis at the nominal clock when the fingerprint knows it; the summary per home (Table 2.1) and
the MPI latency beside the memory latency (section 6)."""
from __future__ import annotations

from typing import Optional

from matplotlib.figure import Figure

from hpceval.analysis.numa import (ONE_HOME, beyond_local, cycles, home_curves, home_summary,
                                   homes, memory_beside_mpi, nominal_mhz)
from hpceval.quality import field

from .data import fig_label, fmt_num, value
from .plot import bytes_axis, line_plot, new_figure, plain_log_y, safe_text
from .registry import FigureSpec, Table, TableSpec, register_figure, register_table

SECTION = "Memory"
ORDER = 20


def _label(run: dict, node: int, recs: list, many: bool) -> str:
    top = recs[-1]
    d = field(top, "distance")
    own = "local" if field(top, "cpu_node") == node else "remote"
    text = f"home {node} ({own}" + (f", distance {d})" if d is not None else ")")
    return safe_text(f"{fig_label(run)}: {text}" if many else text)


def _series(runs: list, kind: str) -> list:
    many = len(runs) > 1
    return [(_label(run, n, recs, many), recs) for run in runs
            for n, recs in home_curves(run, kind).items()]


def _one_home_note(runs: list) -> str:
    return f" ({ONE_HOME}: no remote curve)" if all(homes(r) == 1 for r in runs) else ""


def bandwidth_per_home(runs: list) -> Optional[Figure]:
    """One read-bandwidth line per run and home; the first-touch reads of arrays larger than
    the local memory as points labelled with the share of pages that stayed local."""
    series = _series(runs, "bandwidth")
    spill = [(run, beyond_local(run)) for run in runs]
    if not series and not any(s for _, s in spill):
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    xs = line_plot(ax, series, "bytes")
    for run, recs in spill:
        if recs:
            pts = [(r["params"]["bytes"], value(r)) for r in recs]
            ax.plot(*zip(*pts), marker="s", linestyle="--", color="#c0392b",
                    label=safe_text(f"{fig_label(run)}: first touch beyond the local memory"))
            for r, (x, y) in zip(recs, pts):
                ax.annotate(f"{100 * field(r, 'local_share'):.0f}% local", (x, y), fontsize=7,
                            textcoords="offset points", xytext=(3, 3))
            xs += [x for x, _ in pts]
    bytes_axis(ax, xs, "array size [bytes]")
    ax.set_ylim(bottom=0)
    ax.set_ylabel("read bandwidth [GB/s]")
    ax.legend(loc="best", fontsize=7)
    ax.set_title("Read bandwidth vs array size, memory on each home (one thread, median, band: "
                 "95% CI)" + _one_home_note(runs), loc="left")
    return fig


def latency_per_home(runs: list) -> Optional[Figure]:
    """One load-latency line per run and home; cycles on the right at the nominal clock when
    every run has the same one, else ns only and why."""
    series = _series(runs, "latency")
    if not series:
        return None
    fig = new_figure()
    ax = fig.add_subplot()
    bytes_axis(ax, line_plot(ax, series, "bytes"), "working set [bytes]")
    plain_log_y(ax)
    ax.set_ylabel("load latency [ns]")
    clocks = {nominal_mhz(r) for r in runs}
    mhz = next(iter(clocks))[0] if len(clocks) == 1 else None
    if mhz:
        right = ax.secondary_yaxis("right", functions=(lambda ns: ns * mhz / 1e3,
                                                       lambda c: c * 1e3 / mhz))
        right.set_ylabel(f"cycles at {mhz:.0f} MHz (nominal)")
    note = "" if mhz else ("; ns only: " + ("no nominal clock, see the table" if len(clocks) == 1
                                          else "the runs' nominal clocks differ"))
    ax.set_title(safe_text(f"Load latency per memory home (random chase, base pages{note})"
                           + _one_home_note(runs)), loc="left")
    return fig


register_figure(FigureSpec(SECTION, "Read bandwidth vs array size per memory home (EV7 Fig. 2.6)",
                           bandwidth_per_home, "mem-bandwidth", ORDER))
register_figure(FigureSpec(SECTION, "Load latency vs working set per memory home (EV7 Fig. 2.1)",
                           latency_per_home, "mem-latency", ORDER))


# ---------------------------------------------------------------- tables

def homes_table(run: dict) -> Optional[Table]:
    lat = {h["home"]: h for h in home_summary(run, "latency")}
    bw = {h["home"]: h for h in home_summary(run, "bandwidth")}
    if not lat and not bw:
        return None
    rows = []
    for node in sorted(set(lat) | set(bw)):
        h = lat.get(node) or bw[node]
        ns = lat[node]["value"] if node in lat else None
        rows.append([node, "local" if h["local"] else "remote", fmt_num(h["distance"]),
                     fmt_num(ns), fmt_num(cycles(run, ns)),
                     fmt_num(bw[node]["value"]) if node in bw else "—"])
    mhz, why = nominal_mhz(run)
    note = ("Each home's figures at its curve's largest size, measured from one CPU with the "
            "memory bound to that home (mbind). Distance: the firmware's (10: local). "
            + (f"Cycles at the nominal {mhz:.0f} MHz." if mhz else f"No cycles: {why}."))
    if homes(run) == 1:
        note += f" {ONE_HOME.capitalize()}: no remote memory to measure."
    return Table(["home", "", "distance", "latency [ns]", "latency [cycles]",
                  "read bandwidth [GB/s]"], rows, note)


def mpi_beside_memory(run: dict) -> Optional[Table]:
    m = memory_beside_mpi(run)
    if m is None:
        return None
    rows = [["8 B MPI ping-pong latency (intra-node)", fmt_num(m["mpi_us"] * 1000), "ns",
             m["mpi_point"]],
            ["memory load latency", fmt_num(m["mem_ns"]), "ns", m["what"]],
            ["difference: the MPI software's share", fmt_num(m["difference_us"] * 1000), "ns", ""],
            ["ratio MPI / memory", fmt_num(m["ratio"]), "x", ""]]
    note = ("EV7 section 6 set the 1.7 us MPI latency beside the 135-240 ns of remote memory: "
            "what a message costs beyond the load the hardware needs to move the data.")
    return Table(["", "value", "unit", "measured at"], rows, note)


register_table(TableSpec(SECTION, "Memory per home: latency and read bandwidth (EV7 Table 2.1)",
                         homes_table, order=ORDER))
register_table(TableSpec(SECTION, "MPI latency beside memory latency (EV7 section 6)",
                         mpi_beside_memory, order=ORDER))
