"""Node fingerprints of a run that spans nodes: identical nodes in one line, differing nodes a
finding naming the fields (hpceval/analysis/nodes.py, hpceval/runner/nodeprint.py)."""
from hpceval.analysis.nodes import FINDING, node_lines
from hpceval.runner.nodeprint import _parse, differences, node_fingerprint


def test_identical_and_differing_nodes():
    fp = node_fingerprint("/bin/true")
    assert fp["cpu_model"] and fp["caches"] is not None and "hostname" not in fp
    nodes = {"n1": dict(fp), "n2": dict(fp)}
    run = {"settings": {"nodes": {"nodes": nodes, "differ": differences(nodes), "warning": None}}}
    [line] = node_lines(run)
    assert line.startswith("2 nodes (n1, n2), identical fingerprints")
    nodes["n2"] = {**fp, "kernel": "other", "memory_bytes": 1}
    run["settings"]["nodes"].update(differ=differences(nodes), warning="fingerprints from 2 of 3 nodes")
    lines = node_lines(run)
    assert lines[0] == f"{FINDING} memory_bytes, kernel"
    assert lines[2].startswith("n2: memory_bytes=1; kernel=other") and lines[-1].startswith("warning:")
    assert node_lines({"settings": {}}) == []


def test_parse_ignores_what_is_not_a_fingerprint():
    assert _parse('noise\n{"host": "a", "cores": 2}\n[1]\n') == {"a": {"cores": 2}}
