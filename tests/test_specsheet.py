"""Spec sheets (hpceval/specsheet.py): TOML or JSON figures checked; missing, unknown, absurd
and self-contradicting values refused in one line."""
import pytest

from hpceval import specsheet
from hpceval.errors import UsageError

GOOD = """name = "V node"
peak_gflops_per_node = 3072
cores_per_node = 64
memory_bandwidth_gbs_per_node = 409.6
network_latency_us = 1.2
network_bandwidth_mbs = 12500
nodes = 16
clock_mhz = 1500
flops_per_cycle = 32
"""


def test_toml_and_json(tmp_path):
    t = tmp_path / "v.toml"
    t.write_text(GOOD)
    spec = specsheet.load(str(t))
    assert spec["peak_gflops_per_node"] == 3072.0 and spec["cores_per_node"] == 64
    assert spec["name"] == "V node" and spec["nodes"] == 16
    j = tmp_path / "v.json"
    j.write_text('{"memory_bandwidth_gbs_per_node": 12}')
    assert specsheet.load(str(j)) == {"memory_bandwidth_gbs_per_node": 12.0}


@pytest.mark.parametrize("text,msg", [
    ("", "no figures"),
    ("peak_gflops = 3", "unknown key 'peak_gflops'"),
    ("peak_gflops_per_node = -1", "is absurd"),
    ("peak_gflops_per_node = 1e12", "is absurd"),
    ("network_latency_us = \"fast\"", "is not a number"),
    ("nodes = 2.5", "is not a whole number"),
    ('{"peak_gflops_per_node": NaN}', "is not a number"),
    ("peak_gflops_per_node = nan", "is not a number"),
    ("peak = [", "neither JSON nor TOML"),
    ("[1, 2]", "neither JSON nor TOML"),
    ("name = 3\nnodes = 1", "name must be text"),
    (GOOD.replace("3072", "4000"), "contradicts clock x flops/cycle x cores = 3072"),
])
def test_refused_in_one_line(tmp_path, text, msg):
    f = tmp_path / "s.toml"
    f.write_text(text)
    with pytest.raises(UsageError, match=msg) as e:
        specsheet.load(str(f))
    assert "\n" not in str(e.value)


def test_not_a_file(tmp_path):
    with pytest.raises(UsageError, match="not a regular file \\(a directory\\)"):
        specsheet.load(str(tmp_path))
    with pytest.raises(UsageError, match="No such file"):
        specsheet.load(str(tmp_path / "missing.toml"))
