"""The CLI imports only the command it is given, and no numpy or jsonschema until a command
needs them: make test starts `python -m hpceval` 700 times, a third of them refusals that run
nothing, and each paid 0.1 s for the libraries (0.17 s a start-up now, 0.27 s before)."""
import subprocess
import sys

import pytest

from helpers import ROOT

PROBE = """
import sys
from hpceval.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = [m for m in ("numpy", "jsonschema", "scipy", "matplotlib") if m in sys.modules]
commands = sorted(m for m in sys.modules if m.startswith("hpceval.cli.cmd_"))
print(code, ",".join(heavy) or "-", ",".join(commands) or "-")
"""


def _probe(tmp_path, *args, db=True):
    where = ["--db", str(tmp_path / "r.sqlite")] if db else []
    p = subprocess.run([sys.executable, "-c", PROBE, *args, *where],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    code, heavy, commands = p.stdout.splitlines()[-1].split()   # after what the command printed
    return int(code), heavy, commands.split(",")


@pytest.mark.parametrize("args", [["runs"], ["export", "latest"], ["run", "pingpong", "--np", "0"],
                                  ["show", "latest"], ["import", "/nonexistent.json"]])
def test_a_command_loads_itself_and_no_numerics(tmp_path, args):
    code, heavy, commands = _probe(tmp_path, *args)
    assert heavy == "-", (args, heavy)
    # its own module, and those it borrows from (runs and show share show's tables)
    assert f"hpceval.cli.cmd_{args[0]}" in commands and len(commands) <= 3, commands


def test_a_misspelt_command_still_lists_every_command(tmp_path):
    p = subprocess.run([sys.executable, "-m", "hpceval", "rnu"], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert p.returncode == 2 and "invalid choice: 'rnu'" in p.stderr
    assert "'run'" in p.stderr and "'spec'" in p.stderr and "'experiment'" in p.stderr


def test_the_version_loads_no_command(tmp_path):
    code, heavy, commands = _probe(tmp_path, "--version", db=False)
    assert (code, heavy, commands) == (0, "-", ["-"])
