"""CSV export cells: numbers as they are; nothing that is not a finite number."""
from hpceval.cli.cmd_export import _cell


def test_cells():
    assert [_cell(v) for v in (3, 2.5, 0.0, None, float("nan"), float("inf"), -float("inf"))] == \
        [3, 2.5, 0.0, "", "", "", ""]
