"""execute(): a launch that hangs after its end record (MPICH/UCX in MPI_Finalize) is ended and
kept as ok with a warning; one that hangs before it times out; either way nothing it started,
even in a process group of its own, is left."""
import subprocess
import time

from hpceval.runner.execute import FINALIZE_GRACE_S, execute

END = '{"record_version": 1, "type": "end", "benchmark": "x", "status": "ok", "elapsed_s": 0.1}'


def _left(marker: str) -> bool:
    return subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 0


def test_hang_after_the_end_record_is_ok_with_a_warning():
    t0 = time.monotonic()
    out = execute(["sh", "-c", f"echo '{END}'; exec sleep 641"], {}, 60, "now")
    assert out.status == "ok" and time.monotonic() - t0 < FINALIZE_GRACE_S + 8
    assert any("after its end record" in w for w in out.warnings)
    assert not _left("sleep 641")


def test_hang_before_the_end_record_times_out_and_ends_other_groups():
    # setsid/setpgid as launchers do for their remote agents: not in the launcher's group.
    out = execute(["sh", "-c", "setsid sleep 642 & sleep 643"], {}, 1.5, "now")
    assert out.status == "timeout"
    assert not _left("sleep 642") and not _left("sleep 643")


MKDIR_BANNER = """--------------------------------------------------------------------------
A call to mkdir was unable to create the desired directory:

  Directory: /tmp/x/ompi.vm.0/jf.0
  Error:     No such file or directory

Please check to ensure you have adequate permissions to perform
the desired operation.
--------------------------------------------------------------------------"""


def test_a_banner_that_ends_in_a_colon_says_what_it_refers_to(tmp_path):
    (tmp_path / "banner").write_text(MKDIR_BANNER + "\n")
    out = execute(["sh", "-c", f"cat {tmp_path / 'banner'} >&2; exit 1"], {}, 30, "now")
    assert out.status == "failed"
    assert out.message == ("A call to mkdir was unable to create the desired directory: "
                           "Directory: /tmp/x/ompi.vm.0/jf.0 Error: No such file or directory")
