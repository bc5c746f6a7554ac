"""hpceval twin: a simulated platform (SimGrid XML with its SMPI settings) describing a node kind,
calibrated from a stored run's records or from a spec sheet; run it with `hpceval run SUITE
--platform TWIN --nodes N` (hpceval/simulate/twin.py, hpceval/analysis/calibrate.py; docs/simulate.md)."""
from __future__ import annotations

import argparse
import sys

from hpceval.cli.common import add_db, open_store, resolve_runs
from hpceval.errors import UsageError

NAME = "twin"
HELP = "a simulated platform calibrated from a stored run's records or a spec sheet"


def add_arguments(p: argparse.ArgumentParser) -> None:
    from hpceval.simulate.topology import TOPOLOGIES
    p.add_argument("run", nargs="*", default=[], metavar="RUN",
                   help="the run to calibrate from (pingpong, eager and a kernel: column or "
                        "sst); several runs of one machine: each point's median run")
    p.add_argument("--spec", metavar="SHEET.toml", default=None,
                   help="calibrate from a spec sheet instead (hpceval spec's keys plus topology)")
    p.add_argument("--topology", choices=tuple(TOPOLOGIES), default="flat",
                   help="a run's twin: how its nodes are joined (default flat)")
    p.add_argument("--shape", default=None, metavar="SHAPE",
                   help="a run's twin: the topology's fixed unit, grown to --nodes (fat-tree K:U "
                        "nodes a leaf : up-links a leaf, torus AxB leading dimensions, dragonfly "
                        "CxRxN); default: every dimension from the node count")
    p.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write the platform here (default: standard output)")
    add_db(p)


def _twin(args: argparse.Namespace):
    from hpceval.analysis import calibrate
    if (not args.run) == (args.spec is None):
        raise UsageError("twin: give a RUN or --spec SHEET.toml (one of them)")
    if args.spec is not None:
        if args.shape is not None or args.topology != "flat":
            raise UsageError("twin --spec: the sheet states its topology and topology_shape; "
                             "--topology and --shape are for a run's twin")
        return calibrate.from_spec(args.spec)
    store = open_store(args)
    try:
        ids = list(dict.fromkeys(resolve_runs(store, args.run, default_all=False)))
        runs = [store.get_run(i, traces=False) for i in ids]
    finally:
        store.close()
    return calibrate.from_runs(runs, args.topology, args.shape)


def execute(args: argparse.Namespace) -> int:
    from hpceval.outfiles import check_output_file, write_text_whole
    from hpceval.simulate.twin import twin_xml
    if args.output is not None:
        check_output_file(args.output, "-o", "xml")
    xml = twin_xml(_twin(args))
    if args.output is None:
        sys.stdout.write(xml)
    else:
        write_text_whole(args.output, xml, "xml", "-o")
        print(f"twin written to {args.output}")
    return 0
