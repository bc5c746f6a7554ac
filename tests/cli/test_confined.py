"""Never touch what is not hpceval's (#33): build names and flags, output targets that are not
regular files, and spreadsheet formulas in CSV. Every probe: exit 2, one line, and the user's
files (a results database, a folder, a device) exactly as they were."""
from __future__ import annotations

import json
import os
import stat
import uuid
from pathlib import Path

import pytest

from hpceval.outfiles import whole_file, write_text_whole
from hpceval.errors import UsageError


def one_line(p) -> str:
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert p.returncode == 2 and len(lines) == 1 and "Traceback" not in p.stderr, (p.stdout, p.stderr)
    return lines[0]


@pytest.fixture
def home(tmp_path):
    """A data directory holding a results database and a named build, and a folder of the
    user's own beside it: what a bad name must never reach."""
    data = tmp_path / "data" / "hpceval"
    (data / "builds" / "mine").mkdir(parents=True)
    (data / "builds" / "mine" / "marker").write_text("a build")
    (data / "results.sqlite").write_text("the user's results")
    own = tmp_path / "own"
    own.mkdir()
    (own / "thesis.tex").write_text("years of work")
    return {"XDG_DATA_HOME": str(tmp_path / "data"), "HPCEVAL_BINDIR": ""}, data, own


def untouched(data: Path, own: Path) -> None:
    assert (data / "results.sqlite").read_text() == "the user's results"
    assert (data / "builds" / "mine" / "marker").read_text() == "a build"
    assert (own / "thesis.tex").read_text() == "years of work"


@pytest.mark.parametrize("name", ["..", ".", "", "/", "a/b", "../own", "-x", "x y", "é", "a" * 65])
def test_build_names_are_plain_names(cli, home, name):
    env, data, own = home
    if name == "../own":
        name = str(own)
    line = one_line(cli("build", f"--name={name}", "--cflags=-fno-such-flag", env=env))
    assert "build name" in line, line
    untouched(data, own)


def test_a_failed_build_keeps_the_old_one_of_that_name(cli, home):
    env, data, own = home
    line = one_line(cli("build", "--name", "mine", "--cflags=-fno-such-flag", env=env))
    assert "cannot build" in line or "failed" in line, line
    untouched(data, own)
    assert not [p for p in (data / "builds").iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("variant", ["../../../../x=-O2", "..=-O2", "=-O2", "a/b=-O2"])
def test_experiment_build_variants_are_plain_names(cli, home, variant):
    env, data, own = home
    line = one_line(cli("experiment", "builds", "column", "--variants", f"gcc-O2,{variant}",
                        env=env))
    assert "build name" in line, line
    untouched(data, own)


@pytest.mark.parametrize("flags", ["-O2 -DX=`touch${IFS}/tmp/hpceval-pwned`",
                                   "-O2 -DX=`touch$${IFS}/tmp/hpceval-pwned`",
                                   "-O2 $(shell touch /tmp/hpceval-pwned)",
                                   "-O2;touch /tmp/hpceval-pwned", "-O2 -DX='a'"])
def test_flags_never_reach_a_shell(cli, home, flags):
    env, data, own = home
    Path("/tmp/hpceval-pwned").unlink(missing_ok=True)
    for args in (["build", f"--cflags={flags}"], ["build", "--name", "inj", f"--cflags={flags}"],
                 ["experiment", "builds", "column", "--variants", f"inj={flags}"]):
        line = one_line(cli(*args, env=env))
        assert "not a plain compiler flag" in line, line
    assert not Path("/tmp/hpceval-pwned").exists()
    untouched(data, own)
    assert not (data / "builds" / "inj").exists() and not (data / "build").exists()


@pytest.fixture
def specials(tmp_path):
    """Targets that are not regular files: a FIFO, a link to a device, a directory."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "null-link"
    link.symlink_to("/dev/null")
    return [fifo, link, tmp_path, Path("/dev/full")]


def _is_special(p: Path) -> bool:
    return p.is_dir() or stat.S_ISFIFO(os.stat(p).st_mode) or stat.S_ISCHR(os.stat(p).st_mode)


@pytest.mark.parametrize("command", [["tune", "barotropic", "-o"], ["report", "-o"],
                                     ["history", "--junit"], ["trace", "-o"]])
def test_outputs_refuse_what_is_not_a_regular_file(cli, specials, command):
    for target in specials:
        args = [*command, str(target)] + (["--", "true"] if command[0] == "trace" else [])
        line = one_line(cli(*args))
        assert str(target) in line, line
        assert _is_special(target)
    assert not cli.db.exists()


def test_whole_file_refuses_devices_and_keeps_the_old_content(tmp_path, specials):
    for target in specials:
        with pytest.raises(UsageError, match="not a regular file|is a symbolic link|is a directory"):
            write_text_whole(target, "x")
        assert _is_special(target)
    f = tmp_path / "kept.txt"
    f.write_text("old")
    with pytest.raises(RuntimeError):
        with whole_file(f) as out:
            out.write("half")
            raise RuntimeError("stopped half way")
    assert f.read_text() == "old" and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    link = tmp_path / "link"
    link.symlink_to(f)
    with pytest.raises(UsageError, match="is a symbolic link"):
        write_text_whole(link, "new")
    assert link.is_symlink() and f.read_text() == "old"


def test_csv_export_neutralises_formulas(cli, tmp_path):
    from helpers import FAST
    assert cli("run", "pingpong", *FAST, "--set", "sizes=8", "--set", "refine=0",
               "--tag", "x").returncode == 0
    runs = cli.export()
    for run in runs:
        run["uuid"] = str(uuid.uuid4())           # a new run, whatever the old id was
        run["suite"] = "=HYPERLINK(\"http://x\",\"y\")"
    f = tmp_path / "evil.json"
    f.write_text(json.dumps(runs))
    assert cli("import", str(f)).returncode == 0
    out = cli("export", "--format", "csv", "2")
    assert out.returncode == 0, out.stderr
    body = out.stdout.splitlines()[1:]
    assert body and all("'=HYPERLINK" in l for l in body)
    assert not any(",=" in l or ",\"=" in l for l in body)
    from hpceval.cli.cmd_export import _text
    assert [_text(v) for v in ("+1", "-x", "@a", "\t=1", "ok", -1.5, 3)] == \
        ["'+1", "'-x", "'@a", "'\t=1", "ok", -1.5, 3]
