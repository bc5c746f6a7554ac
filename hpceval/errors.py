"""Exceptions that the command line turns into a one-line message and an exit code."""


class HpcevalError(Exception):
    """Base class; `exit_code` is what the command line returns."""

    exit_code = 1


class UsageError(HpcevalError):
    """Bad usage or bad input: exit 2, nothing was run."""

    exit_code = 2


class BenchmarkFailed(HpcevalError):
    """A benchmark failed or was killed; results stored before it stay stored."""

    exit_code = 1


class Interrupted(KeyboardInterrupt):
    """The driver was told to stop (SIGINT, SIGTERM, SIGHUP): the launch in progress is killed
    with its ranks and the run marked interrupted; the exit status is 128 + the signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
