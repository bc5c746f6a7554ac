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
