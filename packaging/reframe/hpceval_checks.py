# ReFrame checks that run hpceval suites on a centre's systems (docs/ci.md, "ReFrame").
#
#   reframe -c packaging/reframe/hpceval_checks.py -r                 # every suite below
#   reframe -c packaging/reframe/hpceval_checks.py -n HpcevalQuick -r \
#       -S hpceval=/apps/hpceval/bin/hpceval -S references_file=/site/hpceval-refs.json
#
# Each check is run-only: hpceval measures, verifies and launches its own ranks (srun inside
# the Slurm job ReFrame submits, mpirun/mpiexec on a local partition), so ReFrame's parallel
# launcher is replaced by the plain one. Sanity is hpceval's exit status (non-zero when a kernel's
# verification failed, a launch failed or the run timed out) and its run status; the performance
# variables are the run's headline figures, one per 'hpceval-perf NAME VALUE UNIT BETTER' line of
# `hpceval show latest --perf`, with references from a JSON file the centre fills in.
import json
import os
import re
import shlex

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.backends import getlauncher

PERF_LINE = r'^hpceval-perf (\S+) (\S+) (\S+) (lower|higher)$'
HERE = os.path.dirname(os.path.abspath(__file__))


def reference_entry(ref, better, unit):
    """ReFrame's (value, lower, upper, unit) from the centre's [value, tolerance]: a figure
    may be worse than the value by the tolerance (a fraction) in its bad direction only."""
    value, tolerance = ref
    if better == 'lower':
        return (value, None, tolerance, unit)
    return (value, -tolerance, None, unit)


class HpcevalRun(rfm.RunOnlyRegressionTest):
    """One `hpceval run SUITE` into a database of the stage directory."""

    suite = variable(str)
    #: the command: `hpceval` on PATH (a module, a venv's bin/), or a path
    hpceval = variable(str, value='hpceval')
    #: more `hpceval run` options, as one shell-quoted string ("--set budget=0.5")
    options = variable(str, value='')
    #: --budget for the whole run ('' : the suite's own plan)
    budget = variable(str, value='')
    #: {"SYSTEM:PARTITION" | "SYSTEM" | "*": {"NAME": [value, tolerance]}}: the references
    references_file = variable(str, value=os.path.join(HERE, 'references.json'))

    valid_systems = ['*']
    valid_prog_environs = ['*']
    num_tasks = 2
    time_limit = '30m'
    tags = {'hpceval'}

    @run_before('run')
    def hpceval_command(self):
        self.job.launcher = getlauncher('local')()   # hpceval launches its own ranks
        db = os.path.join(self.stagedir, 'hpceval.sqlite')
        self.executable = self.hpceval
        self.executable_opts = ['run', self.suite, '--db', db, '--tag', 'reframe',
                                '--np', str(self.num_tasks)]
        if self.budget:
            self.executable_opts += ['--budget', self.budget]
        self.executable_opts += [shlex.quote(w) for w in shlex.split(self.options)]
        # The job's exit status would be the last command's: keep hpceval run's for sanity.
        self.postrun_cmds = ['status=$?',
                             f'{self.hpceval} show latest --db {db} --perf',
                             'echo "hpceval-exit $status"']

    @sanity_function
    def hpceval_passed(self):
        return sn.all([
            sn.assert_found(r'^hpceval-exit 0$', self.stdout,
                            msg='hpceval run failed (its message is in the output)'),
            sn.assert_found(r'^hpceval-run \d+ (ok|incomplete)$', self.stdout,
                            msg='the run was not stored as ok'),
            sn.assert_found(PERF_LINE, self.stdout, msg='the run has no headline figure'),
        ])

    @run_before('performance')
    def hpceval_figures(self):
        """One performance variable per headline figure the run produced, and its reference."""
        if self.is_dry_run():                        # reframe --dry-run: no job ran
            return
        path = os.path.join(self.stagedir, sn.evaluate(self.stdout))
        with open(path) as out:
            figures = [m.groups() for m in re.finditer(PERF_LINE, out.read(), re.MULTILINE)]
        units = {name: (unit, better) for name, _, unit, better in figures}
        for name, (unit, _) in units.items():
            pattern = rf'^hpceval-perf {re.escape(name)} (\S+) '
            self.perf_variables[name] = sn.make_performance_function(
                sn.extractsingle(pattern, self.stdout, 1, float), unit)
        self.reference = self.references(units)

    def references(self, units):
        if not os.path.exists(self.references_file):
            return {}
        with open(self.references_file) as f:
            scopes = json.load(f)
        return {scope: {name: reference_entry(ref, units[name][1], units[name][0])
                        for name, ref in refs.items() if name in units}
                for scope, refs in scopes.items() if not scope.startswith('_')}


@rfm.simple_test
class HpcevalQuick(HpcevalRun):
    """ping-pong, memory latency, STREAM and a small barotropic solver (about a minute)."""
    suite = 'quick'
    tags = {'hpceval', 'quick'}


@rfm.simple_test
class HpcevalComm(HpcevalRun):
    """The communication suite: latency, bandwidth, LogGP, collectives, halo (a few minutes)."""
    suite = 'comm'
    tags = {'hpceval', 'comm'}


@rfm.simple_test
class HpcevalStudy(HpcevalRun):
    """The whole study (memory, communication, kernels, proxies, NAS) fitted to the budget."""
    suite = 'study'
    budget = '1h'
    time_limit = '1h30m'
    tags = {'hpceval', 'study'}
