"""The column-physics kernel: checksum against the long-double reference at every longitude
dimension (including one that does not divide the column count), the stated operation count, a
corrupted result caught, bad input refused."""
import pytest

from kernel_helpers import QUICK, results, run


def test_checksum_and_operation_count(bindir):
    p, recs = run(bindir, "column", "--nlons", "1,7,64,512", *QUICK)
    assert p.returncode == 0, p.stderr
    res = results(recs, "mflops")
    assert [r["params"]["nlon"] for r in res] == [1, 7, 64, 512]
    for r in res:
        assert r["check"] == "ok" and r["stats"]["min"] > 0
        assert r["params"]["ncols"] == 512 and r["params"]["levels"] == 18
        # 22 L + 14 L(L-1)/2 flops; sqrt and exp once per level and pair, divide twice per level
        assert r["flops_per_column"] == 2538
        assert (r["sqrt_per_column"], r["exp_per_column"], r["div_per_column"]) == (171, 171, 189)
        assert r["checksum"] == pytest.approx(r["reference_checksum"], rel=1e-10)
    # every chunking computes the same columns
    assert len({round(r["checksum"], 6) for r in res}) == 1


def test_other_level_count(bindir):
    p, recs = run(bindir, "column", "--nlons", "3", "--ncols", "10", "--levels", "5", *QUICK)
    assert p.returncode == 0, p.stderr
    [r] = results(recs)
    assert r["flops_per_column"] == 22 * 5 + 14 * 10


def test_corrupt_result_fails(bindir):
    p, recs = run(bindir, "column", "--nlons", "8", "--inject", "corrupt", *QUICK)
    assert p.returncode == 1
    assert "column kernel check failed" in p.stderr
    assert not results(recs)


@pytest.mark.parametrize("args,msg", [
    (["--nlons", "1024"], "exceeds --ncols"),
    (["--levels", "1"], "levels"),
    (["--nlons", "0"], "nlons"),
])
def test_bad_input(bindir, args, msg):
    p, _ = run(bindir, "column", *args, *QUICK)
    assert p.returncode == 2
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and msg in lines[0]
