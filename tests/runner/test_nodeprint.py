"""Gathering the nodes' fingerprints: a launch that fails at once is tried again; one that
still misses nodes says which part answered and why."""
from __future__ import annotations

import json

from hpceval.runner.nodeprint import gather

FP = {"arch": "x86_64", "cores": 1}


class FakeLauncher:
    """Launches a shell script instead of an MPI job."""
    program = "mpirun"

    def __init__(self, script: str):
        self.script = script

    def command(self, n, argv, bind, env, slots=()):
        return ["sh", "-c", self.script]


def _prints(hosts):
    return "; ".join(f"echo '{json.dumps({'host': h, **FP})}'" for h in hosts)


def test_a_failed_start_is_tried_again(tmp_path):
    marker = tmp_path / "tried"
    script = (f"if [ -e {marker} ]; then {_prints(['n1', 'n2'])}; "
              f"else touch {marker}; echo 'daemon failed to start' >&2; exit 1; fi")
    got = gather(FakeLauncher(script), ("n1", "n2"), 30)
    assert sorted(got["nodes"]) == ["n1", "n2"] and got["warning"] is None


def test_missing_nodes_say_why(tmp_path):
    script = f"{_prints(['n1'])}; echo 'ssh: n2: no route' >&2; exit 1"
    got = gather(FakeLauncher(script), ("n1", "n2"), 30)
    assert list(got["nodes"]) == ["n1"]
    assert got["warning"] == "fingerprints from 1 of 2 nodes (ssh: n2: no route)"


def test_a_timeout_is_not_tried_again(tmp_path):
    script = f"echo x >> {tmp_path / 'count'}; exec sleep 60"
    got = gather(FakeLauncher(script), ("n1",), 1.0)
    assert got["warning"] == "fingerprints from 0 of 1 nodes (timed out)"
    assert (tmp_path / "count").read_text() == "x\n"
