"""Values checked by their grammar (#44): Slurm times, timeouts, durations and --set numbers are
ASCII digits in their documented forms (int() and float() also take '８', '١', '1_0' and
spaces), and import reads an export strictly (a key twice, a uuid twice, a bare run). Every
refusal: exit 2, one line naming the option or field and why, the database as it was; nothing
here launches MPI."""
from __future__ import annotations

import argparse
import json
import sqlite3

import pytest

from hpceval.catalog.budget import parse_budget
from hpceval.catalog.params import ascii_float, ascii_int
from hpceval.cli.common import timeout_seconds
from hpceval.slurm.clock import parse_left, slurm_seconds

KELVIN = "\u212a"          # KELVIN SIGN: re.IGNORECASE took it for K, then _SUFFIX had no key


# -- the grammars, in-process ----------------------------------------------------------------
@pytest.mark.parametrize("text,seconds", [
    ("60", 3600), ("1:00", 60), ("1:30", 90), ("1-0", 86400), ("0-0:0:1", 1),
    ("24:00:00", 86400), ("1-02:03:04", 93784), ("2-3:04", 183840), ("90:00", 5400),
    ("UNLIMITED", None), ("infinite", None), ("-1", None),
])
def test_slurm_time_forms(text, seconds):
    assert slurm_seconds(text) == seconds


@pytest.mark.parametrize("text", ["abc", "", "1:2:3:4", "5-", "1e3", " 5", "5 ", "+5", "-5",
                                  "\u0663", "1.5", "1:60", "1-24", "1-2:60", "\uff15", "1_0"])
def test_slurm_time_refused(text):
    with pytest.raises(ValueError):
        slurm_seconds(text)


def test_squeue_time_left_reads_the_same_grammar():
    assert parse_left(" 1-02:03:04\n") == 93784 and parse_left("03:04") == 184
    assert parse_left("INVALID") is None and parse_left("\u0663:00") is None


@pytest.mark.parametrize("text,value", [("8", 8), ("-1", -1), ("+5", 5), ("007", 7)])
def test_ascii_int(text, value):
    assert ascii_int(text) == value


@pytest.mark.parametrize("text", ["\uff18", "1_0", " 8", "8 ", "0x10", "1e3", "", "\u0663", "٣"])
def test_ascii_int_refuses_what_int_takes_or_means_otherwise(text):
    with pytest.raises(ValueError, match="not an integer in ASCII digits"):
        ascii_int(text)


@pytest.mark.parametrize("text", ["1_0.5", "\uff11.5", " 1", "0x1p3", "1e", ".", "1.5.2"])
def test_ascii_float_refuses(text):
    with pytest.raises(ValueError, match="not a number in ASCII digits"):
        ascii_float(text)


def test_ascii_float_forms():
    assert [ascii_float(t) for t in ("1", "1.", ".5", "-2.5e-3", "1E3")] == \
        [1.0, 1.0, 0.5, -0.0025, 1000.0]
    assert str(ascii_float("nan")) == "nan" and ascii_float("-Infinity") == float("-inf")


@pytest.mark.parametrize("text,seconds", [("90s", 90), ("10m", 600), ("10min", 600),
                                          ("1h", 3600), ("1.5h", 5400), ("3600", 3600),
                                          (".5m", 30), ("2d", 172800), ("1H", 3600)])
def test_budget_forms(text, seconds):
    assert parse_budget(text) == seconds


@pytest.mark.parametrize("text,floor", [("1", 1.0), ("2.5", 2.5), ("1e3", 1000.0)])
def test_timeout_forms(text, floor):
    assert timeout_seconds(text) == floor


@pytest.mark.parametrize("text", ["0.5", "1e-9", "nan", "inf", "1e400", "1_0", "\uff11\uff10",
                                  "", "-1", "31622401"])
def test_timeout_refused(text):
    with pytest.raises(argparse.ArgumentTypeError):
        timeout_seconds(text)


# -- submit --time: sbatch's forms only, written as given --------------------------------------
@pytest.mark.parametrize("time,message", [
    ("abc", "'abc': not one of Slurm's forms M, M:S, H:M:S, D-H, D-H:M, D-H:M:S"),
    ("", "'': not one of Slurm's forms"),
    ("1:2:3:4", "'1:2:3:4': not one of Slurm's forms"),
    ("5-", "'5-': not one of Slurm's forms"),
    ("1e3", "'1e3': not one of Slurm's forms"),
    (" 5", "' 5': not one of Slurm's forms"),
    ("5 ", "'5 ': not one of Slurm's forms"),
    ("+5", "'+5': not one of Slurm's forms"),
    ("-5", "'-5': not one of Slurm's forms"),
    ("\u0663", "not one of Slurm's forms"),
    ("1.5", "'1.5': not one of Slurm's forms"),
    ("1:60", "'1:60': seconds 60 in M:S must be below 60"),
    ("1-24:00", "'1-24:00': hours 24 in D-H:M must be below 24"),
    ("99999999999", "99999999999: more than a year"),
    ("0", "0: Slurm reads it as no time limit"),
    ("0-0:0:0", "Slurm reads it as no time limit"),
    ("UNLIMITED", "UNLIMITED: Slurm reads it as no time limit"),
    ("INFINITE", "Slurm reads it as no time limit"),
])
def test_submit_time_refused(hostile, time, message):
    line = hostile("submit", "pingpong", "--nodes", "1", "--dry-run", f"--time={time}",
                   message=message)
    assert "argument --time:" in line


@pytest.mark.parametrize("time", ["1-02:03:04", "60", "1:00", "1-0", "0-0:0:1", "24:00:00"])
def test_submit_time_valid_forms_are_written_as_given(hostile, time):
    p = hostile.cli("submit", "pingpong", "--nodes", "1", "--dry-run", "--time", time)
    assert p.returncode == 0, p.stderr
    assert f"#SBATCH --time={time}\n" in p.stdout


# -- every --timeout: finite seconds from the floor ---------------------------------------------
TIMEOUT_COMMANDS = {
    "run": ["run", "pingpong"],
    "submit": ["submit", "pingpong", "--nodes", "1", "--dry-run"],
    "trace": ["trace", "--", "true"],
    "experiment": ["experiment", "binding", "pingpong"],
}


@pytest.mark.parametrize("command", sorted(TIMEOUT_COMMANDS))
@pytest.mark.parametrize("value,message", [
    ("1e-9", "1e-9: must be a positive number of seconds, from 1 s to a year"),
    ("0.5", "0.5: must be a positive number of seconds, from 1 s"),
    ("nan", "nan: must be a positive number of seconds"),
    ("1e400", "1e400: must be a positive number of seconds"),
    ("1_0", "invalid float value: '1_0' (seconds in ASCII digits"),
])
def test_timeout_refused_by_every_command(hostile, command, value, message):
    name, *rest = TIMEOUT_COMMANDS[command]       # the option before trace's "--"
    line = hostile(name, "--timeout", value, *rest, message=message)
    assert "argument --timeout:" in line


@pytest.mark.parametrize("value", ["\uff11\uff10", "inf", "-5", ""])
def test_run_timeout_other_refusals(hostile, value):
    hostile("run", "pingpong", f"--timeout={value}", message="argument --timeout:")


def test_a_valid_timeout_is_passed_on_to_the_job(hostile):
    p = hostile.cli("submit", "pingpong", "--nodes", "1", "--dry-run", "--timeout", "1e3")
    assert p.returncode == 0, p.stderr
    assert "run pingpong --timeout 1000.0 --db" in p.stdout


# -- run --budget: ASCII digits, a decimal point, a unit ----------------------------------------
@pytest.mark.parametrize("value", ["1_0", "\uff11s", "10 s", " 10s", "10ss", "-1m", "1e3", "nan",
                                   "10sec", "\u0661m", "0x10", "."])
def test_budget_refused(hostile, value):
    hostile("run", "pingpong", "--dry-run", f"--budget={value}",
            message=f"--budget {value}: expected a duration such as 90s, 10m or 1h")


@pytest.mark.parametrize("value", ["0.5s", "367d"])
def test_budget_out_of_range(hostile, value):
    hostile("run", "pingpong", "--dry-run", "--budget", value,
            message=f"--budget {value}: between 1 s and a year")


def test_a_valid_budget_still_plans(hostile):
    p = hostile.cli("run", "pingpong", "--dry-run", "--budget", "1.5m")
    assert p.returncode == 0 and "estimated" in p.stdout, p.stderr


# -- --set numbers: ASCII digits only, through one parser --------------------------------------
@pytest.mark.parametrize("target,setting,message", [
    ("pingpong", "sizes=\uff18", "--set sizes: '\uff18' is not a size"),
    ("pingpong", "sizes=1_0", "--set sizes: '1_0' is not a size"),
    ("pingpong", "sizes=0x10", "--set sizes: '0x10' is not a size"),
    ("pingpong", f"sizes=1{KELVIN}", f"--set sizes: '1{KELVIN}' is not a size"),
    ("pingpong", "min-reps=1_0", "--set min-reps: '1_0' is not an integer"),
    ("pingpong", "min-reps=\uff11\uff10", "is not an integer"),
    ("pingpong", "max-reps=0x10", "--set max-reps: '0x10' is not an integer"),
    ("pingpong", "warmup=\u0663", "--set warmup: '\u0663' is not an integer"),
    ("pingpong", "budget=1_0.5", "--set budget: '1_0.5' is not a number"),
    ("pingpong", "budget=\u0663", "--set budget: '\u0663' is not a number"),
    ("collectives", "nranks=\u0663", "--set nranks: '\u0663' is not a list of rank counts"),
    ("hydro", "npe=\uff12x1x1", "--set npe: '\uff12x1x1' is not PxQxR"),
    ("hydro", "ranks=ladder,\u0663", "--set ranks: '\u0663' is not a rank count"),
    ("barotropic", "grids=\uff196x64", "--set grids: '\uff196x64' is not NXxNY"),
    ("phold", "lookahead=\u0661", "--set lookahead: '\u0661' is not a number"),
    ("stream", "threads=\u0662", "--set threads: '\u0662' is not a thread count"),
])
def test_set_numbers_in_other_scripts_refused(hostile, target, setting, message):
    hostile("run", target, "--set", setting, message=message)


def test_set_numbers_in_ascii_still_plan(hostile):
    p = hostile.cli("run", "pingpong", "--dry-run", "--json", "--set", "sizes=8,1K",
                    "--set", "min-reps=+3", "--set", "budget=.05")
    assert p.returncode == 0, p.stderr
    params = json.loads(p.stdout)["launches"][0]["params"]
    assert (params["sizes"], params["min-reps"], params["budget"]) == ("8,1024", "3", "0.05")


# -- import: strict JSON, the schema's shape, one uuid one run ----------------------------------
def _run(hostile) -> dict:
    return json.loads(hostile.export.read_text())[0]


def _new(run: dict, uuid: str) -> dict:
    return {**run, "uuid": uuid}


def _write(hostile, text: str) -> str:
    path = hostile.tmp / "hostile.json"
    path.write_text(text)
    return str(path)


def _duplicate_key(hostile, key: str) -> str:
    """The export with `key` of the first run (or of its first record's stats) given twice."""
    run = _new(_run(hostile), "d0000000-0000-4000-8000-000000000001")
    text = json.dumps([run])
    if key == "uuid":
        return text.replace('"uuid": ', '"uuid": "d0000000-0000-4000-8000-000000000002", "uuid": ', 1)
    return text.replace(f'"{key}": ', f'"{key}": 1e-9, "{key}": ', 1)


@pytest.mark.parametrize("key", ["uuid", "median", "hash", "export_version"])
def test_import_duplicate_keys(hostile, key):
    hostile("import", _write(hostile, _duplicate_key(hostile, key)),
            message=f"duplicate key '{key}' in one object")


def test_import_a_bare_run_object(hostile):
    run = _new(_run(hostile), "b0000000-0000-4000-8000-000000000001")
    hostile("import", _write(hostile, json.dumps(run)),
            message="the top level is one object, not a list of runs")


def test_import_the_same_uuid_twice_imports_nothing(hostile):
    run = _new(_run(hostile), "a0000000-0000-4000-8000-000000000001")
    hostile("import", _write(hostile, json.dumps([run, run])),
            message="runs [0] and [1] have the same uuid a0000000-0000-4000-8000-000000000001; "
                    "nothing imported")


@pytest.mark.parametrize("mangle,message", [
    (lambda t: t.replace('"median": ', '"median": NaN, "x": ', 1), "non-finite number NaN"),
    (lambda t: t.replace('"median": ', '"median": Infinity, "x": ', 1), "non-finite number Infinity"),
    (lambda t: t.replace('"median": ', '"median": -Infinity, "x": ', 1), "non-finite number -Infinity"),
    (lambda t: "\ufeff" + t, "not valid JSON (Unexpected UTF-8 BOM"),
    (lambda t: t + "\n[]", "not valid JSON (Extra data"),
    (lambda t: t + " x", "not valid JSON (Extra data"),
    (lambda t: "[1]", "not an hpceval export version 1: at [0]"),
    (lambda t: '"runs"', "the top level is a string, not a list of runs"),
])
def test_import_hostile_json(hostile, mangle, message):
    run = _new(_run(hostile), "c0000000-0000-4000-8000-000000000001")
    hostile("import", _write(hostile, mangle(json.dumps([run]))), message=message)


# -- export: a database holding an infinity says so instead of writing what import refuses --------
@pytest.mark.parametrize("value,shown", [("9e999", "inf"), ("-9e999", "-inf")])
def test_export_of_a_non_finite_value_is_refused(hostile, value, shown):
    conn = sqlite3.connect(hostile.db)
    conn.execute(f"UPDATE records SET median = {value} WHERE id = (SELECT min(id) FROM records)")
    conn.commit()
    conn.close()
    hostile("export", message=f"run 1: records[0].stats.median is {shown}, not a finite number")
    p = hostile.cli("export", "--format", "csv")       # CSV leaves the cell empty, as before
    assert p.returncode == 0, p.stderr


def test_export_then_import_agree(hostile, tmp_path):
    """What export writes, import reads back: into a new database, every run."""
    out = tmp_path / "again.json"
    p = hostile.cli("export")
    assert p.returncode == 0, p.stderr
    out.write_text(p.stdout)
    p = hostile.cli("import", str(out), "--db", str(tmp_path / "new.sqlite"))
    assert p.returncode == 0 and "imported 1 run" in p.stdout, p.stderr



# -- integer and real options: ASCII digits only (argparse's int() reads '\uff18' as 8) ----------
@pytest.mark.parametrize("args", [
    ["run", "pingpong", "--np", "\uff12"],
    ["run", "pingpong", "--np", "1_0"],
    ["run", "pingpong", "--nodes", "\u0662", "--dry-run"],
    ["run", "pingpong", "--ppn", "\uff12", "--dry-run"],
    ["submit", "pingpong", "--nodes", "\uff11", "--dry-run"],
    ["submit", "pingpong", "--nodes", "1", "--ppn", "2_0", "--dry-run"],
    ["experiment", "binding", "pingpong", "--rounds", "\uff15"],
    ["experiment", "binding", "pingpong", "--np", "\uff12"],
    ["tune", "allreduce", "--np", "\uff12"],
    ["trace", "--np", "\uff12", "--", "true"],
    ["trace", "--max-events", "1_000", "--", "true"],
])
def test_integer_options_in_other_scripts_refused(hostile, args):
    option = args[next(i for i, a in enumerate(args) if not a.isascii() or "_" in a) - 1]
    line = hostile(*args, message="(an integer in ASCII digits)")
    assert f"argument {option}: invalid int value" in line


def test_real_and_list_options_in_other_scripts_refused(hostile):
    hostile("history", "--threshold", "\uff10.1", message="argument --threshold: invalid float")
    hostile("predict", "sweep", "--ranks", "1,\uff12", message="expected positive integers")
