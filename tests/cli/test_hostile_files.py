"""Hostile file names for every flag that names a file to write or read (issue #44): each is
refused before any launch with its exit code and one line naming the flag and the reason; the
database stays byte-identical, the planted file or its target unchanged, nothing new appears
beside it (no NAME-journal), and a device or FIFO is still what it was."""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import stat
from pathlib import Path

import pytest

from hpceval.outfiles import PNG

ELF = Path(shutil.which("true") or "/bin/true")
SQLITE = b"SQLite format 3\0"


# -- what is planted where a command is told to write or read ---------------------------------
def _link(to):
    def plant(d: Path) -> Path:
        (d / "keep.txt").write_text("a file of the user's\n")
        (d / "realdir").mkdir()
        os.symlink(to(d), d / "link")
        return d / "link"
    return plant


def _file(content: bytes):
    def plant(d: Path) -> Path:
        (d / "planted").write_bytes(content)
        return d / "planted"
    return plant


def _fifo(d: Path) -> Path:
    os.mkfifo(d / "fifo")
    return d / "fifo"


def _dir(d: Path) -> Path:
    (d / "adir").mkdir()
    (d / "adir" / "inside.txt").write_text("kept\n")
    return d / "adir"


def _under_file(d: Path) -> Path:
    (d / "afile").write_text("a plain file\n")
    return d / "afile" / "out"


def _sparse(size: int):
    def plant(d: Path) -> Path:
        with open(d / "huge", "wb") as f:
            f.truncate(size)
        return d / "huge"
    return plant


PLANTS = {
    "database": lambda d: d / "results.sqlite",
    "link-to-file": _link(lambda d: d / "keep.txt"),
    "link-to-database": _link(lambda d: d / "results.sqlite"),
    "link-to-dir": _link(lambda d: d / "realdir"),
    "dangling-link": _link(lambda d: d / "nowhere"),
    "link-to-dev-zero": _link(lambda d: "/dev/zero"),
    "fifo": _fifo,
    "dev-null": lambda d: Path("/dev/null"),
    "dev-zero": lambda d: Path("/dev/zero"),
    "directory": _dir,
    "png": _file(PNG + b"\0\0\0\rIHDR" + bytes(64)),
    "gzip": _file(gzip.compress(b"someone's data")),
    "elf": lambda d: Path(shutil.copy(ELF, d / "program")),
    "html": _file(b"<!DOCTYPE html><html><body>a report</body></html>\n"),
    "json": _file(b'{"a": "table"}\n'),
    "binary": _file(bytes(range(256)) * 16),
    "under-a-file": _under_file,
    "unwritable": lambda d: Path("/proc/1/out"),
    "huge-2G": _sparse(2 << 30),
}


def snapshot(d: Path) -> dict:
    """Everything under `d` (links not followed): the kind of each entry and a regular file's
    bytes, so a changed, replaced, added or removed entry shows."""
    out = {}
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            p = Path(root) / name
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[str(p)] = ("link", os.readlink(p))
            elif stat.S_ISREG(st.st_mode) and st.st_size > 1 << 20:     # a sparse one: unread
                out[str(p)] = ("file", st.st_size, st.st_mtime_ns)
            elif stat.S_ISREG(st.st_mode):
                out[str(p)] = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
            else:
                out[str(p)] = (stat.S_IFMT(st.st_mode),)
    return {k: v for k, v in out.items()
            if not k.endswith(("results.sqlite-wal", "results.sqlite-shm"))}


def device_state() -> tuple:
    return tuple(stat.S_IFMT(os.stat(p).st_mode) for p in ("/dev/null", "/dev/zero"))


@pytest.fixture
def refused(hostile):
    """refused(plant, argv with X for the planted path, flag, reason): the contract above; a
    plant is a name in PLANTS or a function planting into the directory."""
    d = hostile.tmp

    def check(plant, argv: list, flag: str, reason: str, code: int = 2) -> str:
        target = (PLANTS[plant] if isinstance(plant, str) else plant)(d)
        args = [str(target) if a == "X" else str(d / a[2:]) if a.startswith("@/") else a
                for a in argv]
        before, devices = snapshot(d), device_state()
        line = hostile(*args, code=code, message=reason)
        flag = str(target) if flag == "X" else flag
        assert line.startswith("hpceval: error: ") and flag in line, line
        assert snapshot(d) == before, "a file beside the target changed or appeared"
        assert device_state() == devices
        assert not any(Path(p).exists() for p in ("/dev/null-journal", "/dev/zero-journal",
                                                  "/dev/null-wal"))
        return line
    check.dir, check.export = d, str(hostile.export)
    return check


# -- the repros -----------------------------------------------------------------------
@pytest.mark.parametrize("argv,flag,kind", [
    (["report", "--db", "@/results.sqlite", "-o", "X"], "-o", "an HTML file"),
    (["tune", "psst", "-o", "X", "--db", "@/results.sqlite"], "-o", "a JSON file"),
    (["trace", "-o", "X", "--", "true"], "-o", "a JSON file"),
    (["history", "--junit", "X", "--db", "@/results.sqlite"], "--junit", "an XML file"),
])
def test_repro1_an_output_onto_the_database(refused, argv, flag, kind):
    refused("database", argv, flag, f"exists and is not {kind} (a SQLite database); hpceval "
                                    "replaces only its own kind of output")


@pytest.mark.parametrize("argv,flag", [
    (["report", "-o", "X"], "-o"),
    (["tune", "psst", "-o", "X"], "-o"),
    (["trace", "-o", "X", "--", "true"], "-o"),
    (["report", "-o", "@/r.html", "--figures", "X"], "--figures"),
    (["trace", "-o", "@/t.json", "--keep-raw", "X", "--", "true"], "--keep-raw"),
])
def test_repro2_no_write_through_a_link(refused, argv, flag):
    plant = "link-to-dir" if flag != "-o" else "link-to-file"
    refused(plant, argv, flag, "is a symbolic link; hpceval does not write through links")


@pytest.mark.parametrize("argv", [["runs", "--db", "X"], ["import", "EXPORT", "--db", "X"]])
def test_repro3_a_device_as_the_database(refused, argv, tmp_path):
    dev = refused.dir / "chardev"
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))    # a /dev/null of the user's
    argv = [refused.export if a == "EXPORT" else a for a in argv]
    line = refused(lambda d: dev, argv, "database", "not a regular file (a character device)")
    assert stat.S_ISCHR(os.lstat(dev).st_mode) and str(dev) in line


@pytest.mark.parametrize("plant", ["dev-zero", "fifo"])
def test_repro6_platform_is_read_only_from_a_regular_file(refused, plant):
    refused(plant, ["run", "pingpong", "--platform", "X"], "--platform", "not a regular file")


@pytest.mark.parametrize("brackets", ['{"a":', "["])
def test_repro11_a_spec_nested_100000_deep(refused, brackets):
    close = "}" if brackets.startswith("{") else "]"
    refused(_file((brackets * 100_000 + "1" + close * 100_000).encode()),
            ["run", "pingpong", "--spec", "X"], "spec", "nested more than 64 levels deep; refused")


# -- every file an output flag names ----------------------------------------------------------
FILE_OUTPUTS = {
    "report -o": (["report", "-o", "X"], "-o", "an HTML file"),
    "tune -o": (["tune", "psst", "-o", "X"], "-o", "a JSON file"),
    "trace -o": (["trace", "-o", "X", "--", "true"], "-o", "a JSON file"),
    "history --junit": (["history", "--junit", "X"], "--junit", "an XML file"),
}
FILE_CASES = {
    "link-to-database": "is a symbolic link; hpceval does not write through links",
    "dangling-link": "is a symbolic link; hpceval does not write through links",
    "fifo": "not a regular file (a FIFO); hpceval writes only regular files",
    "dev-null": "not a regular file (a character device)",
    "directory": "is a directory",
    "png": "(a PNG image); hpceval replaces only its own kind of output",
    "gzip": "(gzip data); hpceval replaces only its own kind of output",
    "elf": "(an ELF executable); hpceval replaces only its own kind of output",
    "under-a-file": "is not a directory",
    "unwritable": "cannot write in /proc/1",
}


# Every case against the two quick commands; tune and trace (slower to start) share the checks
# and are shown wired to them.
@pytest.mark.parametrize("output,plant", [
    *((o, p) for o in ("report -o", "history --junit") for p in FILE_CASES),
    *((o, p) for o in ("tune -o", "trace -o") for p in ("link-to-database", "fifo", "elf",
                                                       "directory"))])
def test_file_outputs_refuse(refused, output, plant):
    argv, flag, _ = FILE_OUTPUTS[output]
    refused(plant, argv, flag, FILE_CASES[plant])


@pytest.mark.parametrize("output,plant,other", [
    ("report -o", "json", "a JSON file"),
    ("tune -o", "html", "an HTML file"),
    ("history --junit", "html", "an HTML file"),
])
def test_an_output_does_not_replace_another_kind_of_hpceval_output(refused, output, plant, other):
    argv, flag, kind = FILE_OUTPUTS[output]
    refused(plant, argv, flag, f"exists and is not {kind} ({other})")


# -- every directory an output flag names -----------------------------------------------------
DIR_OUTPUTS = {
    "report --figures": (["report", "-o", "@/r.html", "--figures", "X"], "--figures"),
    "history --figures": (["history", "--figures", "X"], "--figures"),
    "compare --figures": (["compare", "1", "2", "--figures", "X"], "--figures"),
    "predict --figures": (["predict", "barotropic", "--figures", "X"], "--figures"),
    "experiment --figures": (["experiment", "binding", "pingpong", "--figures", "X"], "--figures"),
    "trace --figures": (["trace", "-o", "@/t.json", "--figures", "X", "--", "true"], "--figures"),
    "trace --keep-raw": (["trace", "-o", "@/t.json", "--keep-raw", "X", "--", "true"],
                         "--keep-raw"),
}
DIR_CASES = {
    "link-to-dir": "is a symbolic link; hpceval does not write through links",
    "fifo": "not a directory (a FIFO)",
}


@pytest.mark.parametrize("plant,reason", [
    ("dangling-link", "is a symbolic link; hpceval does not write through links"),
    ("link-to-file", "is a symbolic link"),
    ("database", "not a directory (a file)"),
    ("dev-null", "not a directory (a character device)"),
    ("under-a-file", "is not a directory"),
    ("unwritable", "cannot write in /proc/1"),
])
def test_figures_directory_refused(refused, plant, reason):
    refused(plant, DIR_OUTPUTS["report --figures"][0], "--figures", reason)


@pytest.mark.parametrize("plant", DIR_CASES)
@pytest.mark.parametrize("output", DIR_OUTPUTS)
def test_directory_outputs_refuse(refused, output, plant):
    argv, flag = DIR_OUTPUTS[output]
    refused(plant, argv, flag, DIR_CASES[plant])


@pytest.mark.parametrize("plant", ["database", "link-to-dir", "dev-null"])
@pytest.mark.parametrize("argv", [["export", "--format", "otf2", "-o", "X"],
                                  ["trace", "--format", "otf2", "-o", "X", "--", "true"]])
def test_otf2_archives_go_only_into_a_new_directory(refused, plant, argv):
    refused(plant, argv, "-o", "already exists")


# -- files written into a named directory: never through a link planted there -----------------
@pytest.fixture(scope="module")
def figure_names(seeded, tmp_path_factory):
    """The files `report --figures` and `history --figures` write for the seeded run (the good
    path; the report's written twice, the second time over its own output)."""
    from helpers import CLI
    d = tmp_path_factory.mktemp("good")
    cli = CLI(seeded / "results.sqlite")
    names = {}
    for cmd, times in ((["report", "-o", str(d / "r.html")], 2), (["history"], 1)):
        fig = d / f"{cmd[0]}-figs"
        for _ in range(times):
            p = cli(*cmd, "--figures", str(fig), timeout=120)
            assert p.returncode == 0, p.stderr
        names[cmd[0]] = sorted(f.name for f in fig.iterdir())
        assert names[cmd[0]] and all(f.is_file() and not f.is_symlink() for f in fig.iterdir())
    assert (d / "r.html").read_text().lstrip().lower().startswith("<!doctype html")
    return names


@pytest.mark.parametrize("which", [0, -1])
@pytest.mark.parametrize("command", ["report", "history"])
def test_a_link_planted_in_a_figures_directory_is_not_followed(refused, figure_names, command,
                                                               which):
    name = figure_names[command][which]
    victim = refused.dir / "victim.txt"

    def plant(d: Path) -> Path:
        victim.write_text("not hpceval's\n")
        (d / "figs").mkdir()
        os.symlink(victim, d / "figs" / name)
        return d / "figs"
    argv = ["report", "-o", "@/r.html"] if command == "report" else ["history"]
    line = refused(plant, [*argv, "--figures", "X"], "--figures",
                   "is a symbolic link; hpceval does not write through links")
    assert name in line and victim.read_text() == "not hpceval's\n"


# -- every file an input flag names -----------------------------------------------------------
INPUTS = {
    "run --spec": (["run", "pingpong", "--spec", "X"], "spec"),
    "run --platform": (["run", "pingpong", "--platform", "X"], "--platform"),
    "import": (["import", "X"], "X"),            # no flag: the line names the file
}
INPUT_CASES = {
    "dev-zero": "not a regular file",
    "link-to-dev-zero": "not a regular file",
    "fifo": "not a regular file",
    "directory": "not a regular file",
    "huge-2G": "MiB; refused",
    "binary": "not UTF-8",
}


@pytest.mark.parametrize("plant", INPUT_CASES)
@pytest.mark.parametrize("source", INPUTS)
def test_inputs_refuse(refused, source, plant):
    argv, flag = INPUTS[source]
    refused(plant, argv, flag, INPUT_CASES[plant])


@pytest.mark.parametrize("text", ['{"nodes": ' + "[" * 65 + "1" + "]" * 65 + "}",
                                  "nodes = " + "[" * 65 + "1" + "]" * 65,
                                  'name = "' + "[" * 100 + '"\nnodes = ' + "{" * 70])
def test_spec_nesting_is_capped(refused, text):
    line = refused(_file(text.encode()), ["report", "-o", "@/r.html", "--spec", "X"], "spec",
                   "nested")
    assert "64 levels" in line or "too deep" in line


# -- the database path: refused before SQLite opens it ----------------------------------------
DB_CASES = {
    "dev-null": "not a regular file (a character device)",
    "dev-zero": "not a regular file (a character device)",
    "link-to-dev-zero": "not a regular file (a character device)",
    "fifo": "not a regular file (a FIFO)",
    "directory": "not a regular file (a directory)",
    "png": "file is not a database (a PNG image, no SQLite header)",
    "html": "file is not a database (an HTML file, no SQLite header)",
    "elf": "file is not a database (an ELF executable, no SQLite header)",
}


@pytest.mark.parametrize("plant", DB_CASES)
@pytest.mark.parametrize("argv", [["history", "--db", "X"], ["import", "EXPORT", "--db", "X"]])
def test_database_path_refused(refused, argv, plant):
    argv = [refused.export if a == "EXPORT" else a for a in argv]
    refused(plant, argv, "database", DB_CASES[plant])


def test_a_database_is_not_created_through_a_dangling_link(refused):
    refused("dangling-link", ["import", refused.export, "--db", "X"], "database",
            "a symbolic link to nothing")
    assert not (refused.dir / "nowhere").exists()
