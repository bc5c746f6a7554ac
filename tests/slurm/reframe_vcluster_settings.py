# A ReFrame site configuration for the Slurm virtual cluster (tests/slurm/test_reframe.py): one
# partition, `debug`, with both nodes. The cluster keeps no accounting (no slurmdbd), so jobs are
# polled with squeue, ReFrame's `squeue` scheduler, not sacct.
site_configuration = {
    'systems': [{
        'name': 'vcluster',
        'descr': 'hpceval virtual cluster (scripts/vcluster up 2 --slurm)',
        'hostnames': ['node[0-9]+'],
        'partitions': [{
            'name': 'debug',
            'scheduler': 'squeue',
            'launcher': 'srun',
            'access': ['--partition=debug'],
            'environs': ['builtin'],
        }],
    }],
    'environments': [{'name': 'builtin'}],
}
