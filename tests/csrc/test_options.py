"""The option parser's list types (csrc/harness/options.c) through csrc/tests/options_probe.c:
what each accepts, what it gives back, and the one-line error naming the option."""
import json
import subprocess

import pytest

from helpers import ROOT

PROBE = ROOT / "build" / "tests" / "options_probe"


def probe(*args):
    p = subprocess.run([str(PROBE), *args], capture_output=True, text=True, timeout=30)
    if p.returncode == 0:
        return json.loads(p.stdout)
    assert p.returncode == 2 and p.stdout.startswith("error: "), (p.stdout, p.stderr)
    return p.stdout[len("error: "):].strip()


def test_defaults():
    assert probe() == {"sizes": [1024, 2], "words": [1], "ops": [0, 1, 2], "grids": [],
                       "grids_text": "", "boxes": [[1, 2, 3]]}


@pytest.mark.parametrize("args,key,value", [
    (["--words", "c,a"], "words", [2, 0]),                      # order kept
    (["--ops", "z"], "ops", [2]),
    (["--ops=all"], "ops", [0, 1, 2]),
    (["--sizes", "4M,0,3"], "sizes", [4 << 20, 0, 3]),
    (["--grids", "4x2,1x8"], "grids", [[4, 2], [1, 8]]),
    (["--grids", "all"], "grids", []),
    (["--boxes", "4x2x1,1x1x8"], "boxes", [[4, 2, 1], [1, 1, 8]]),
    ([], "boxes", [[1, 2, 3]]),
])
def test_lists(args, key, value):
    assert probe(*args)[key] == value


@pytest.mark.parametrize("args,message", [
    (["--words", "d"], "option --words: 'd' is not one of a, b, c"),
    (["--words", "a,,b"], "option --words: 'a,,b' is not a comma list"),
    (["--words", "a,b,a"], "option --words: 'a' is given twice"),
    (["--words", "all"], "option --words: 'all' is not one of a, b, c"),
    (["--ops", "w"], "option --ops: 'w' is not an op (x, y, z, all)"),
    (["--ops", "x,all"], "option --ops: 'all' is given with other words"),
    (["--grids", "4by2"], "option --grids: '4by2' is not PxQ"),
    (["--grids", "0x2"], "option --grids: '0x2' is not PxQ"),
    (["--grids", "99999999999x2"], "option --grids: '99999999999x2' is not PxQ"),
    (["--grids", "2x1,2x1"], "option --grids: '2x1' is given twice"),
    (["--grids", "2x1,"], "option --grids: '2x1,' is not a comma list"),
    (["--sizes", "8,,9"], "option --sizes: value '' is not a non-negative integer"),
    (["--boxes", "4x2"], "option --boxes: '4x2' is not AxBxC"),
    (["--boxes", "4x2x1x1"], "option --boxes: '4x2x1x1' is not AxBxC"),
    (["--boxes", "4x0x1"], "option --boxes: '4x0x1' is not AxBxC"),
    (["--boxes", "1x1x1,1x1x1"], "option --boxes: '1x1x1' is given twice"),
    (["--grids", "4x2x1"], "option --grids: '4x2x1' is not PxQ"),
])
def test_errors_are_one_line_and_name_the_option(args, message):
    assert probe(*args) == message
