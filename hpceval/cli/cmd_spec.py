"""hpceval spec: a machine's spec sheet (the vendor's nominal figures: peak, memory bandwidth,
network, nodes; hpceval/specsheet.py) checked, stored with a run (its settings "spec"), and the
machine card's promised-against-delivered rows printed (hpceval/analysis/peaks.py)."""
from __future__ import annotations

import argparse

from hpceval import specsheet
from hpceval.cli.common import add_db, open_store, resolve_runs

NAME = "spec"
HELP = "check a spec sheet (vendor's nominal figures), store it with a run, show promised against delivered"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="TOML or JSON: peak_gflops_per_node, "
                   "memory_bandwidth_gbs_per_node, network_latency_us, ... (docs/dense.md)")
    p.add_argument("run", nargs="?", default=None, metavar="RUN",
                   help="the run it belongs to (default: the latest)")
    p.add_argument("--check", action="store_true", help="only check the file and print it")
    add_db(p)


def execute(args: argparse.Namespace) -> int:
    spec = specsheet.load(args.file)
    if args.check:
        for key, v in spec.items():
            print(f"{key} = {v!r}")
        return 0
    from hpceval.analysis.card import machine_card
    from hpceval.analysis.peaks import SECTION
    store = open_store(args)
    [run_id] = resolve_runs(store, [args.run] if args.run else [], default_all=False)
    store.set_settings(run_id, {"spec": spec})
    run = store.get_run(run_id, traces=False)
    store.close()
    print(f"run {run_id}: spec sheet stored ({spec.get('name') or args.file})")
    for row in machine_card(run):
        if row["section"] == SECTION and row["value"] is not None:
            v = row["value"]
            shown = f"{v:.4g} {row['unit']}" if isinstance(v, (int, float)) else str(v)
            print(f"  {row['quantity']}: {shown}  ({row['point']})")
    return 0
