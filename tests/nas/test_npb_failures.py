"""The failure paths of the NPB binaries (npb-mg, npb-lu, npb-bt, npb-sp): a bad class or a
rank count NPB's rule forbids is a one-line usage error (exit 2, no results); a corrupted answer
fails the verification against NPB's reference values (an error record naming the value,
exit 1)."""
import pytest

from kernel_helpers import mpirun
from npb_checks import assert_usage_error, assert_verification_fails

TINY = ["--min-reps", "1", "--max-reps", "1", "--warmup", "0"]


@pytest.mark.parametrize("bench,np,args,msg", [
    ("npb-mg", 0, ["--class", "C"], "option --class"),
    ("npb-mg", 0, ["--class", "s"], "option --class"),
    ("npb-mg", 3, ["--class", "S"], "npb-mg: 3 ranks: NPB MG runs on a power of two"),
    ("npb-lu", 0, ["--class", "D"], "option --class"),
    ("npb-lu", 0, ["--class", "s"], "option --class"),
    ("npb-lu", 3, ["--class", "S"], "npb-lu: 3 ranks: NPB LU runs on a power of two"),
    ("npb-bt", 0, ["--class", "D"], "option --class"),
    ("npb-bt", 2, ["--class", "S"], "npb-bt: 2 ranks: NPB BT runs on a square number of ranks"),
    ("npb-sp", 2, ["--class", "S"], "npb-sp: 2 ranks: NPB SP runs on a square number of ranks"),
])
def test_bad_usage_is_one_line_exit_2(bench, np, args, msg):
    p, recs = mpirun(bench, np, *args, *TINY)
    assert_usage_error(p, recs, np, msg)


@pytest.mark.parametrize("bench,np,phrases", [
    ("npb-mg", 2, ("residual norm",)),                    # a residual value before the norm
    ("npb-lu", 2, ("the error norm 1", "LU/verify.f90")),  # a density after the timed run
    ("npb-bt", 4, ("the residual norm 1", "BT/verify.f90")),
    ("npb-sp", 1, ("the residual norm 1", "SP/verify.f90")),
])
def test_corrupt_answer_fails_verification(bench, np, phrases):
    p, recs = mpirun(bench, np, "--class", "S", "--inject", "corrupt", *TINY)
    assert_verification_fails(p, recs, *phrases)
