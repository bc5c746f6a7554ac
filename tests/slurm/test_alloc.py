"""The allocation from Slurm's variables, the --mpi plugin per MPI, the job's clock and the
launches it leaves out (no Slurm needed: these read what salloc/sbatch set and squeue prints)."""
from hpceval.catalog import LaunchSpec
from hpceval.runner.jobtime import left_out, no_room
from hpceval.slurm.alloc import Allocation, expand_counts, mpi_plugin
from hpceval.slurm.clock import JobClock, parse_left, slurm_seconds

ENV = {"SLURM_JOB_ID": "7", "SLURM_JOB_PARTITION": "debug", "SLURM_JOB_NODELIST": "node[1-3]",
       "SLURM_JOB_NUM_NODES": "3", "SLURM_TASKS_PER_NODE": "2(x2),1",
       "SLURM_JOB_CPUS_PER_NODE": "4(x3)"}


def test_counts_and_allocation():
    assert expand_counts("2(x3),1") == [2, 2, 2, 1] and expand_counts("bad") == []
    alloc = Allocation.from_env(ENV)
    assert (alloc.job_id, alloc.partition, alloc.nnodes, alloc.ntasks) == ("7", "debug", 3, 5)
    assert alloc.placement(2) == {"nodes": 2, "ppn": 1}      # a ping-pong crosses nodes
    assert alloc.placement(7) == {"nodes": 3, "ppn": 3}
    assert Allocation.from_env({}) is None


def test_mpi_plugin_per_mpi_and_override():
    assert mpi_plugin("openmpi", {}) == "pmix" and mpi_plugin("mpich", {}) == "pmi2"
    assert mpi_plugin("openmpi", {"SLURM_MPI_TYPE": "pmi2"}) is None   # srun reads it itself
    assert mpi_plugin(None, {}) is None


def test_time_left():
    assert parse_left("1-02:03:04") == 93784 and parse_left("05:00") == 300
    assert parse_left("UNLIMITED") is None and parse_left("INVALID") is None
    clock = JobClock(job_id="", margin_s=15)                 # outside a job
    assert not clock.ending() and clock.cap(100.0) == 100.0
    assert clock.query() == (None, "")


def test_left_out_names_the_launches():
    specs = [LaunchSpec("stream", f"stream {i}", "stream", [], 1, "core") for i in range(14)]
    assert no_room(JobClock(job_id="", margin_s=15), specs[0]) is None   # outside a job
    why = left_out("10 s left", specs)
    assert why.startswith("stopped by the job's time limit: 10 s left; left out 14 launches: "
                          "stream 0, stream 1,") and why.endswith("stream 11 and 2 more")
    assert left_out("x", specs[:1]).endswith("left out 1 launch: stream 0")


def test_sbatch_time_option():
    assert [slurm_seconds(t) for t in ("1", "1:30", "1:00:00", "2-3", "2-3:04", "2-3:04:05")] \
        == [60, 90, 3600, 183600, 183840, 183845]
    assert slurm_seconds("UNLIMITED") is None
