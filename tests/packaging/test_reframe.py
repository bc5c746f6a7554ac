"""packaging/reframe: ReFrame (reframe-hpc from PyPI, `make tools`) runs the shipped checks on
this machine (its builtin 'generic' system, local scheduler): a passing run writes hpceval's
headline figures to the perflog, the same values hpceval stored; a reference set above a
measurement (a forced regression) fails the ReFrame run, one below does not; a failed
verification fails sanity."""
from __future__ import annotations

import json
import math
import subprocess

from helpers import CLI, FAST, perflog, reframe_argv

# One ping-pong launch, two sizes: the checks' machinery at a few seconds a ReFrame run.
PINGPONG = ["suite=pingpong", "options=" + " ".join(FAST + ["--set", "sizes=8,1M",
                                                           "--set", "refine=0"])]
QUICK = ["options=" + " ".join(FAST + ["--set", "pingpong.refine=0",
                                       "--set", "mem-latency.sizes=4K,64K,1M",
                                       "--set", "mem-latency.window=0",
                                       "--set", "stream.n=1000000"])]


def _reframe(tmp_path, check, *settings):
    proc = subprocess.run(reframe_argv(tmp_path, check, *settings), capture_output=True,
                          text=True, timeout=300, cwd=tmp_path, stdin=subprocess.DEVNULL)
    return proc, proc.stdout + proc.stderr


def _stored(tmp_path, benchmark, metric, nbytes):
    """The medians hpceval stored in the check's database for one point."""
    [db] = tmp_path.glob("stage/**/hpceval.sqlite")
    [run] = CLI(db).export()
    return [r["stats"]["median"] for r in run["records"] if r["benchmark"] == benchmark
            and r["metric"] == metric and r["params"].get("bytes") == nbytes]


def test_quick_check_passes_and_its_perflog_holds_the_headline_figures(tmp_path):
    proc, out = _reframe(tmp_path, "HpcevalQuick", *QUICK)
    assert proc.returncode == 0, out
    assert "PASSED" in out and "Ran 1/1 test case" in out
    row = perflog(tmp_path / "perflogs" / "generic" / "default" / "HpcevalQuick.log")
    assert row["result"] == "pass" and row["suite"] == "quick"
    for name, unit in (("ping_pong_latency_8_b", "us"), ("ping_pong_bandwidth_1_mib", "MB/s"),
                       ("memory_latency_4_kib", "ns"), ("stream_triad_best_1_thread", "GB/s"),
                       ("barotropic_solver_96x64_time_per_iteration", "us")):
        value = float(row[f"{name}_value"])
        assert math.isfinite(value) and value > 0 and row[f"{name}_unit"] == unit, name
    # The perflog's figure is the one hpceval stored (its own statistic, median here).
    assert float(row["ping_pong_latency_8_b_value"]) in _stored(tmp_path, "pingpong", "latency", 8)


def test_a_forced_regression_fails_the_reframe_run(tmp_path):
    refs = tmp_path / "refs.json"
    # Bandwidth (higher is better) referenced far above any measurement: a regression;
    # latency (lower is better) referenced far above: within its bound.
    refs.write_text(json.dumps({"*": {"ping_pong_bandwidth_1_mib": [1e12, 0.1],
                                      "ping_pong_latency_8_b": [1e6, 0.1]}}))
    proc, out = _reframe(tmp_path, "HpcevalQuick", *PINGPONG, f"references_file={refs}")
    assert proc.returncode != 0, out
    assert "FAILED" in out and "performance" in out
    failure = out[out.index("FAILURE INFO"):]
    assert "ping_pong_bandwidth_1_mib" in failure and "ping_pong_latency_8_b" not in failure
    row = perflog(tmp_path / "perflogs" / "generic" / "default" / "HpcevalQuick.log")
    assert row["result"] == "fail" and float(row["ping_pong_bandwidth_1_mib_ref"]) == 1e12
    assert row["ping_pong_bandwidth_1_mib_lower_thres"] == "-0.1"
    assert row["ping_pong_latency_8_b_upper_thres"] == "0.1"


def test_a_failed_verification_fails_sanity(tmp_path):
    # Every message corrupted on its way: ping-pong's data check fails, hpceval exits 1.
    proc, out = _reframe(tmp_path, "HpcevalQuick", *PINGPONG[:1],
                         "options=" + " ".join(FAST + ["--set", "sizes=8", "--set", "inject=corrupt"]))
    assert proc.returncode != 0, out
    assert "FAILED" in out and "sanity" in out and "hpceval run failed" in out
    # the failed check stays in its stage directory, hpceval's reason in the job's stderr
    assert "data check failed" in next(tmp_path.glob("stage/**/rfm_job.err")).read_text()


def test_every_check_writes_its_suite_job_without_running_it(tmp_path):
    # reframe --dry-run: the job scripts of the quick, comm and study checks (the latter two
    # take minutes to an hour for real).
    argv = [a for a in reframe_argv(tmp_path, "Hpceval.*") if a not in ("-r", "--keep-stage-files")]
    proc = subprocess.run([*argv, "--dry-run"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and "Ran 3/3 test case" in proc.stdout, proc.stdout + proc.stderr
    for check, run in (("HpcevalQuick", "run quick"), ("HpcevalComm", "run comm"),
                       ("HpcevalStudy", "run study")):
        [job] = tmp_path.glob(f"stage/**/{check}/rfm_job.sh")
        script = job.read_text()
        assert f"-m hpceval {run} --db " in script and " --tag reframe --np 2" in script
        assert "--perf" in script and 'echo "hpceval-exit $status"' in script
    assert "--budget 1h" in next(tmp_path.glob("stage/**/HpcevalStudy/rfm_job.sh")).read_text()
