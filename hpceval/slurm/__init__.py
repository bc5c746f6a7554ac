"""Slurm: the allocation hpceval runs in (alloc.py), its clock (clock.py), batch jobs written and
submitted (script.py, submit.py), followed (follow.py), and the state of their runs reconciled
with Slurm's (jobstate.py). Every Slurm fact comes from Slurm's own commands and variables."""
