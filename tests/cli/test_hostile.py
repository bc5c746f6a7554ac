"""Hostile input against every command and binary: each probe must end with its exit code and
one line on stderr (no traceback), and leave the database exactly as it was."""
from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from helpers import BIN, db_digest, single_line


# -- run: settings that must be refused in Python before anything launches -----------------
@pytest.mark.parametrize("args,message", [
    (["--timeout", "nan"], "--timeout: nan: must be a positive number"),
    (["--timeout", "inf"], "--timeout: inf: must be a positive number"),
    (["--timeout=-inf"], "must be a positive number"),
    (["--timeout", "0"], "must be a positive number"),
    (["--timeout", "soon"], "invalid float value"),
    (["--set", "budget=nan"], "'nan' is not a finite number"),
    (["--set", "budget=inf"], "'inf' is not a finite number"),
    (["--set", "ci-target=-nan"], "not a finite number"),
    (["--set", "min-reps=50", "--set", "max-reps=5"], "min-reps 50 is larger than max-reps 5"),
    (["--set", "min-reps=1e3"], "'1e3' is not an integer"),
    (["--set", "max-reps=99999999999999999999"], "out of range"),
    (["--set", "sizes="], "empty list of sizes"),
    (["--set", "sizes=1Q"], "is not a size"),
    (["--set", "=3"], "empty parameter name"),
    (["--set", "budget"], "expected NAME=VALUE"),
    (["--set", "inject=explode"], "is not one of"),
    (["--np", "100000"], "100000 ranks: refused, more than 64 ranks per core"),
    (["--np", "-1"], "need at least 1 rank"),
    (["--np", "1e9"], "invalid int value"),
    (["--tag", "\x1b[2Jgone"], "holds control characters"),
    (["--tag", ""], "a tag is 1-100 characters"),
])
def test_run_refuses_before_launching(hostile, args, message):
    hostile("run", "pingpong", *args, message=message)


# -- damaged databases: exit 2 and what is wrong, never an internal error --------------------
def damage(db: Path, sql: str) -> None:
    conn = sqlite3.connect(db)
    conn.executescript(sql)
    conn.close()


@pytest.mark.parametrize("sql,command,message", [
    ("DELETE FROM schema_version", "runs", "schema version is none"),
    ("UPDATE schema_version SET version = ''", "show", "schema version is ''"),
    ("UPDATE schema_version SET version = 'two'", "export", "schema version is 'two'"),
    ("UPDATE schema_version SET version = 2.5", "report", "not one whole number"),
    ("INSERT INTO schema_version VALUES (3)", "runs", "not one whole number"),
    ("DROP TABLE records", "show", "table records missing"),
    ("DROP TABLE launches", "report", "table launches missing"),
    ("DROP TABLE traces", "export", "table traces missing"),
    ("UPDATE records SET params = '{bad'", "show", "record params is not valid JSON"),
    ("UPDATE records SET extra = '[1,'", "export", "record extra is not valid JSON"),
    ("UPDATE runs SET tags = '['", "runs", "tags is not valid JSON"),
    ("UPDATE runs SET settings = 'x'", "report", "settings is not valid JSON"),
    ("UPDATE fingerprints SET data = 'nope'", "show", "fingerprint is not valid JSON"),
    ("UPDATE launches SET warnings = '{'", "history", "launch warnings is not valid JSON"),
    ("UPDATE launches SET meta = '{'; INSERT INTO runs (uuid, started, suite, status, tags,"
     " fingerprint_id, settings) SELECT 'x-' || uuid, started, suite, status, tags, fingerprint_id,"
     " settings FROM runs", "compare", "launch meta is not valid JSON"),
    ("UPDATE schema_version SET version = 99", "runs", "schema version 99"),
])
def test_damaged_database(hostile, sql, command, message):
    damage(hostile.db, sql)
    args = {"runs": ["runs"], "show": ["show", "1"], "export": ["export"], "history": ["history"],
            "compare": ["compare", "1", "2"], "report": ["report", "-o", str(hostile.tmp / "r.html")]}
    hostile(*args[command], message=message)
    assert not (hostile.tmp / "r.html").exists()


@pytest.mark.parametrize("ref,message", [
    ("99999999999999999999999", "no run '99999999999999999999999'"),
    ("-1", "no run '-1'"),
    ("%", "no run '%'"),
    ("", "no run ''"),
    ("\u0663", "no run"),                # an Arabic-Indic digit three: isdigit() but no id
])
def test_show_unknown_runs(hostile, ref, message):
    hostile("show", ref, message=message)


def test_ambiguous_prefix_says_so(hostile):
    """The 8 characters `runs` shows: a shorter all-digit prefix would be read as a run id that
    does not exist (store.resolve), one time in 6.5 for a random uuid's first 4."""
    conn = sqlite3.connect(hostile.db)
    uuid = conn.execute("SELECT uuid FROM runs").fetchone()[0]
    other = uuid[:9] + ("0000" if uuid[9:13] != "0000" else "1111") + uuid[13:]
    conn.execute("INSERT INTO runs (uuid, started, suite, status, tags, fingerprint_id, settings)"
                 " SELECT ?, started, suite, status, tags, fingerprint_id, settings FROM runs",
                 (other,))
    conn.commit()
    conn.close()
    hostile("show", uuid[:8], message=f"run '{uuid[:8]}' is ambiguous: the uuids of 2 runs")


@pytest.mark.parametrize("args", [["show", "1"], ["export", "1"], ["history"], ["compare", "1", "2"],
                                  ["report", "-o", "r.html"], ["show", "latest", "--json"]])
def test_read_only_commands_create_no_database(hostile, args):
    missing = hostile.tmp / "typo" / "nothing.sqlite"
    hostile(*args, "--db", str(missing), message="no database there")
    assert not missing.exists() and not missing.parent.exists()


@pytest.mark.parametrize("args,out", [(["runs"], "no runs in"), (["export"], "[]")])
def test_listing_a_missing_database_creates_nothing(hostile, args, out):
    missing = hostile.tmp / "typo" / "nothing.sqlite"
    p = hostile.cli(*args, "--db", str(missing))
    assert p.returncode == 0 and out in p.stdout and not p.stderr
    assert not missing.parent.exists()


# -- outputs: refused before any work, and an old output is never overwritten by a failure ----
@pytest.mark.parametrize("target,message", [
    ("DIR", "is a directory"),
    ("/proc/version", "cannot write in /proc"),
    ("/dev/full", "not a regular file"),
    ("/dev/null", "not a regular file"),
    ("/proc/1/report.html", "cannot write in /proc/1"),
    ("/etc/hostname/r.html", "is not a directory"),
    ("/nonexistent/dir/r.html", "does not exist"),
])
def test_report_output_refused(hostile, target, message):
    target = str(hostile.tmp) if target == "DIR" else target
    hostile("report", "-o", target, message=message)


def test_figures_onto_a_file_leaves_the_old_report(hostile):
    old = hostile.tmp / "old.html"
    old.write_text("<!doctype html>the old report")
    (hostile.tmp / "afile").write_text("x")
    hostile("report", "-o", str(old), "--figures", str(hostile.tmp / "afile"),
            message="--figures")
    assert old.read_text() == "<!doctype html>the old report"
    assert (hostile.tmp / "afile").read_text() == "x"


@pytest.mark.parametrize("args,message", [
    (["report", "-o", "r.html", "--figures", "/proc/figs"], "cannot write in /proc"),
    (["history", "--figures", "FILE"], "not a directory"),
    (["history", "--figures", "/dev/null"], "not a directory"),
    (["report", "-o", "r.html", "--pdf"], "--pdf needs --figures"),
])
def test_figure_dirs_refused(hostile, args, message):
    (hostile.tmp / "FILE").write_text("x")
    args = [str(hostile.tmp / "FILE") if a == "FILE" else a for a in args]
    hostile(*args, message=message)
    assert not Path("r.html").exists()


@pytest.mark.parametrize("args", [["export"], ["export", "--format", "csv"], ["show", "1"],
                                  ["show", "1", "--json"], ["runs"], ["history", "--json"]])
def test_stdout_full(hostile, args):
    with open("/dev/full", "w") as full:
        p = subprocess.run([*hostile.cli.argv(), *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, env=hostile.cli.env(), timeout=120)
    assert p.returncode == 2
    assert "cannot write to standard output: No space left on device" in single_line(p.stderr)


# -- import: the meaning is checked too, and a bad file imports nothing ------------------------
def _mangled(hostile, change) -> str:
    runs = json.loads(hostile.export.read_text())
    for run in runs:
        # new to the database, so only the check refuses it: a uuid that began with "f" stayed
        # the same (one seeded session in 16 imported nothing and found no tag)
        run["uuid"] = ("0" if run["uuid"].startswith("f") else "f") + run["uuid"][1:]
    change(runs[0])
    path = hostile.tmp / "mangled.json"
    path.write_text(json.dumps(runs).replace('"MEDIAN_1E400"', "1e400"))
    return str(path)


def _stat(key, value):
    def change(run):
        run["records"][0]["stats"][key] = value
    return change


def _set(where, key, value):
    def change(run):
        target = run if where == "run" else run[where][0]
        target[key] = value
    return change


@pytest.mark.parametrize("change,message", [
    (_stat("median", "MEDIAN_1E400"), "non-finite number 1e400"),
    (_set("run", "started", "not-a-date"), "started 'not-a-date' is not an ISO 8601 date"),
    (_set("run", "finished", "yesterday"), "finished 'yesterday' is not an ISO 8601 date"),
    (_set("launches", "started", "13/13/2026"), "launch started"),
    (_stat("min", 1e9), "stats out of order"),
    (_stat("max", -1.0), "stats out of order"),
    (_stat("ci_low", 1e6), "ci_low 1e+06 is above ci_high"),
    (_set("records", "benchmark", "no-such-bench"), "unknown benchmark 'no-such-bench'"),
    (_set("launches", "benchmark", "evil"), "unknown benchmark 'evil' in a launch"),
    (_stat("n", 10 ** 30), "integer 1000000000000000000000000000000... is out of range"),
    (_stat("stddev", -1), "not an hpceval export"),
    (_stat("median", None), "not an hpceval export"),
    (_set("run", "status", "abandoned?"), "not an hpceval export"),
])
def test_import_checks_meaning(hostile, change, message):
    hostile("import", _mangled(hostile, change), message=message)


def test_imported_tags_print_without_their_control_characters(hostile):
    path = _mangled(hostile, _set("run", "tags", ["\x1b[2J\x1b[31mred"]))
    p = hostile.cli("import", path)
    assert p.returncode == 0, p.stderr
    uuid = json.loads(open(path).read())[0]["uuid"]
    for args in (["runs"], ["show", uuid]):
        out = hostile.cli(*args).stdout
        assert "\x1b" not in out and "red" in out, out


def test_import_negative_latency(hostile):
    def negative(run):
        rec = next(r for r in run["records"] if r["unit"] == "us")
        rec["stats"].update({k: -abs(rec["stats"][k]) for k in ("min", "median", "mean", "max")})
        rec["stats"].update(min=rec["stats"]["max"], max=rec["stats"]["min"],
                            ci_low=-1.0, ci_high=-0.5)
        rec["stats"]["median"] = rec["stats"]["mean"] = (rec["stats"]["min"] + rec["stats"]["max"]) / 2
    hostile("import", _mangled(hostile, negative), message="a negative us value")


@pytest.mark.parametrize("content,message", [
    ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
    ("[" * 200_000, "nested too deeply"),
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ("[NaN]", "non-finite number NaN"),
    ("[1e400]", "non-finite number 1e400"),
    ("null", "not an hpceval export"),
    ("", "empty file"),
    ('{"export_version": 1}', "not an hpceval export"),
])
def test_import_hostile_files(hostile, content, message):
    path = hostile.tmp / "hostile.json"
    path.write_text(content)
    hostile("import", str(path), message=message)


@pytest.mark.parametrize("path,message", [
    ("/proc/version", "not valid JSON"),
    ("/nonexistent.json", "No such file or directory"),
    ("/tmp", "not a regular file (a directory)"),
    ("/bin/sh", "not UTF-8"),
])
def test_import_odd_paths(hostile, path, message):
    hostile("import", path, message=message)


# -- history ------------------------------------------------------------------------------------
def test_history_param_filters_headlines(hostile):
    p = hostile.cli("history", "--param", "bytes=8", "--json")
    assert p.returncode == 0, p.stderr
    series = json.loads(p.stdout)
    assert series and all(x["params"]["bytes"] == 8 for x in series)


@pytest.mark.parametrize("args,message", [
    (["--param", "bytes=12345"], "matches --param bytes=12345"),
    (["--param", "bytes"], "--param bytes: expected NAME=VALUE"),
    (["--benchmark", "pingpong", "--metric", "nosuch"], "matches --benchmark pingpong --metric nosuch"),
    (["--threshold", "nan"], "must be a fraction"),
    (["--threshold", "0"], "must be a fraction"),
    (["--tag", "x", "--machine", "y"], "give one"),
])
def test_history_refuses(hostile, args, message):
    hostile("history", *args, message=message)


# -- the C binaries check their options too (run directly, as an MPI singleton) ----------------
@pytest.mark.parametrize("binary,args,message", [
    ("pingpong", ["--sizes", "-5"], "is not a non-negative integer"),
    ("pingpong", ["--sizes", "abc"], "is not a non-negative integer"),
    ("pingpong", ["--sizes", "8,,9"], "is not a non-negative integer"),
    ("pingpong", ["--sizes", "99999999999999999999999"], "--sizes"),
    ("pingpong", ["--budget", "nan"], "is not a number"),
    ("pingpong", ["--budget", "inf"], "is not a number"),
    ("pingpong", ["--budget", "-1"], "out of range"),
    ("pingpong", ["--min-reps", "50", "--max-reps", "5"], "larger than --max-reps"),
    ("pingpong", ["--max-reps", "99999999999999999999"], "out of range"),
    ("pingpong", ["--frobnicate"], "unknown option '--frobnicate'"),
    ("pingpong", ["--sizes"], "missing value"),
    ("pingpong", ["--inject", "explode"], "--inject"),
    ("mem-latency", ["--sizes", "12Q"], "is not a non-negative integer"),
    ("mem-latency", ["--min-reps", "0"], "out of range"),
    ("stream", ["--budget", "1e999"], "is not a number"),
    ("stream", ["--bogus"], "unknown option '--bogus'"),
    ("collectives", ["--sizes", "-1"], "is not a non-negative integer"),
    ("halo", ["--warmup", "-1"], "out of range"),
    ("column", ["--ci-target", "0"], "out of range"),
    ("column", ["--budget", "ten"], "is not a number"),
])
def test_binaries_refuse_bad_options(hostile, binary, args, message):
    before = db_digest(hostile.db)
    p = subprocess.run([str(BIN / f"hpceval-{binary}"), *args], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, (p.stdout, p.stderr)
    line = single_line(p.stderr)
    assert line.startswith(f"hpceval-{binary}: error:") and message in line, line
    assert db_digest(hostile.db) == before
