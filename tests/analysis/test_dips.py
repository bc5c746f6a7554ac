"""Power-of-two dips in a rate against size (hpceval/analysis/dips.py): a drop beyond the noise at a
power-of-two leading dimension is one; a drop inside the neighbours' confidence is not; a
candidate without a non-power-of-two neighbour on each side is not judged."""
from hpceval.analysis.dips import Point, power_of_two_dips


def _pt(n, rate, ci=0.01):
    return Point((n, n, n), float(n ** 3), rate, rate * (1 - ci), rate * (1 + ci))


def test_a_drop_beyond_the_noise_is_a_dip():
    rows = power_of_two_dips([_pt(30, 100.0), _pt(32, 80.0), _pt(34, 102.0)])
    (row,) = rows
    assert row["point"].dims[0] == 32 and row["dip"]
    assert 0.78 < row["ratio"] < 0.80                    # 80 against about 101 interpolated


def test_a_drop_inside_the_noise_is_not():
    rows = power_of_two_dips([_pt(30, 100.0, 0.2), _pt(32, 93.0, 0.2), _pt(34, 100.0, 0.2)])
    assert [r["dip"] for r in rows] == [False]
    rows = power_of_two_dips([_pt(30, 100.0), _pt(32, 98.0), _pt(34, 100.0)])   # 2%: too small
    assert [r["dip"] for r in rows] == [False]


def test_only_candidates_with_neighbours_on_both_sides():
    # 16 has no smaller non-power-of-two neighbour; 64 is judged between 48 and 96, skipping 128
    pts = [_pt(16, 50.0), _pt(24, 60.0), _pt(48, 70.0), _pt(64, 40.0), _pt(96, 70.0),
           _pt(128, 30.0)]
    rows = power_of_two_dips(reversed(pts))             # any order
    assert [(r["point"].dims[0], r["dip"]) for r in rows] == [(64, True)]
    assert abs(rows[0]["expected"] - 70.0) < 1e-9
