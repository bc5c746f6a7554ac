"""The harness's refusal of non-finite numbers (csrc/harness/output.c) and its shared "finite
and within a bound" checks (csrc/harness/check.c), through csrc/tests/check_probe.c: a refused
value is an error record and exit status 1, never a record with null or NaN in it."""
import json
import subprocess

import pytest

from helpers import ROOT

PROBE = ROOT / "build" / "tests" / "check_probe"


def probe(*args):
    p = subprocess.run([str(PROBE), *args], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    return p, [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def test_a_finite_number_is_written():
    p, [rec] = probe("num", "1.5")
    assert p.returncode == 0, p.stderr
    assert rec["value"] == 1.5


@pytest.mark.parametrize("value", ["nan", "-nan", "inf", "-inf"])
def test_output_refuses_non_finite(value):
    p, recs = probe("num", value)
    assert p.returncode == 1
    [err] = recs  # the error record only: no record carrying the value, not even as null
    assert err["type"] == "error" and "'value'" in err["message"] and "not a finite" in err["message"]
    assert "null" not in p.stdout


@pytest.mark.parametrize("value,bound,ok,msg", [
    ("0.1", "0.5", True, None),
    ("0.5", "0.5", True, None),
    ("0.7", "0.5", False, "probe error: 0.7 exceeds the bound 0.5"),
    ("nan", "0.5", False, "probe error: nan is not finite (bound 0.5)"),
    ("inf", "1e300", False, "not finite"),
])
def test_check_bound(value, bound, ok, msg):
    p, recs = probe("bound", value, bound)
    assert (p.returncode == 0) == ok, p.stderr
    if not ok:
        [err] = recs
        assert err["type"] == "error" and msg in err["message"]


def test_check_finite_names_the_first_bad_element():
    p, [rec] = probe("finite", "1", "2", "3")
    assert p.returncode == 0 and rec["n"] == 3
    p, [err] = probe("finite", "1", "nan", "inf")
    assert p.returncode == 1
    assert "probe state: element 1 of 3 is nan" in err["message"]
