"""hpceval predict across the virtual cluster's two nodes: LogGP measured between the nodes, the
barotropic solver on one rank and on one rank per node; the prediction for two ranks rests on
the inter-node parameters and is held against the two-node measurement."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import BIN, ROOT
from test_runs import TINY, assert_nothing_left, finish, hpceval_on_node1


@pytest.mark.alone          # the prediction is held to 5% of a measurement
def test_prediction_across_two_nodes(cluster, tmp_path):
    db = Path(cluster.cluster.directory) / "predict.sqlite"     # seen by every node
    try:
        rc, _, err = finish(hpceval_on_node1(
            cluster, db, BIN, "loggp", "barotropic", *TINY, "--set", "loggp.sizes=0,1K,64K",
            "--set", "barotropic.ranks=1,2", "--set", "barotropic.grids=48x32",
            "--set", "barotropic.land=none", "--set", "barotropic.halos=pack",
            "--set", "barotropic.sums=allreduce", "--set", "barotropic.mappings=row",
            "--hosts", "node1,node2", "--ppn", "1"), timeout=300)
        assert rc == 0, err
        p = subprocess.run([str(ROOT / ".venv" / "bin" / "hpceval"), "predict", "barotropic",
                            "--grid", "48x32", "--ranks", "1,2", "--json", "--db", str(db)],
                           capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert p.returncode == 0, p.stderr
        out = json.loads(p.stdout)
        assert out["sources"]["message time"].startswith("LogGP (inter-node)"), out["sources"]
        two = out["rows"][1]
        assert two["ranks"] == 2 and two["measured"] and two["parts"]["halo"] > 0, two
        assert abs(two["error"]) < 5, two           # a number, stated in the closing note
    finally:
        db.unlink(missing_ok=True)
    assert_nothing_left(cluster)
