"""Named suites. `quick` evaluates a node in about a minute on 2 cores."""
from hpceval.catalog.registry import STUDY, Suite, register_suite

# The barotropic entries are two small launches (a few seconds): the application-proxy
# section, with its phase breakdown, and one traced launch for the Gantt and utilization charts.
_BAROTROPIC = {"grids": "96x64", "ranks": "2", "mappings": "row", "halos": "pack,datatype",
               "sums": "allreduce,tree", "branches": "2", "budget": "0.1", "min-reps": "3",
               "max-reps": "10", "warmup": "1"}

register_suite(Suite(
    "quick", "ping-pong, memory latency, STREAM and a small barotropic solver run (one traced), "
    "short budgets (about a minute)",
    (("pingpong", {"budget": "0.2", "ci-target": "0.02"}),
     ("mem-latency", {"budget": "0.25"}),
     ("stream", {"budget": "2", "max-reps": "20"}),
     ("barotropic", _BAROTROPIC),
     ("barotropic", {**_BAROTROPIC, "pgrids": "2x1", "halos": "pack", "sums": "allreduce",
                     "trace": "yes", "warmup": "0", "min-reps": "2", "max-reps": "2"}))))

# The memory hierarchy as the EV7 and p690 evaluations measured it (a few minutes on 2 cores):
# latency per order and page size plus the core x NUMA-node matrix and a curve per memory home,
# bandwidth per access mode at 4 points per octave and read bandwidth per home, contention, STREAM over thread counts and both binding policies.
register_suite(Suite(
    "memory", "memory hierarchy: latency (orders, page sizes, NUMA matrix, curve per memory "
    "home), bandwidth per mode and per home, "
    "contention, STREAM thread sweep with close/spread binding (a few minutes)",
    (("mem-latency", {"order": "random,linear", "pages": "base,thp,huge", "matrix": "yes",
                      "homes": "each",
                      "budget": "0.1", "min-reps": "5"}),
     ("mem-bandwidth", {"budget": "0.04", "min-reps": "5", "warmup": "1", "homes": "each"}),
     ("mem-contention", {"budget": "0.5"}),
     ("stream", {"threads": "sweep", "bind": "close,spread", "budget": "1", "max-reps": "20"}))))

# The EV7 study's three applications at small sizes (about 10 s on 2 cores): hydro's cell rate
# across cache levels and weak scaling, Monte Carlo's two shapes of run over workers, the
# wavefront sweep's weak scaling and pipeline blocking; then the p690 talk's EVH1 (zone rate and
# the transposes' share, each transpose) and PCTM (both layouts).
_APPS = {"budget": "0.3", "min-reps": "3", "max-reps": "20", "warmup": "1"}
register_suite(Suite(
    "apps", "application proxies: LANL's hydrodynamics cell rate vs cells per rank and weak "
    "scaling, Monte Carlo time per history for many small and few large cycles, wavefront "
    "transport weak scaling, strong scaling and mk/mmi blocking; the p690 talk's EVH1 zone rate "
    "and transposes' share per transpose variant, and the coupled climate model's years per day "
    "in both layouts (1 and 2 ranks; about a minute on 2 cores)",
    (("hydro", {**_APPS, "cells": "8x8x8,16x16x16,30x30x15,32x32x32", "ranks": "1,2"}),
     ("hydro", {**_APPS, "problem": "sod", "grid": "200x4x4", "ranks": "1,2"}),
     ("montecarlo", {**_APPS, "cycles": "200", "particles": "100", "chunk": "10",
                     "ranks": "1,2"}),
     ("montecarlo", {**_APPS, "cycles": "4", "particles": "20000", "chunk": "1000",
                     "ranks": "1,2"}),
     ("sweep", {**_APPS, "per-rank": "20x20x20", "ranks": "1,2", "mk": "2,5,10",
                "mmi": "1,3"}),
     ("sweep", {**_APPS, "grid": "24x24x24", "ranks": "1,2"}),
     ("evh1", {**_APPS, "zones": "16x16x16", "ranks": "1,2"}),
     ("pctm", {**_APPS, "ranks": "1,2"}))))

# The SP2 study's application set at small sizes (a few minutes on 2 cores): NAS CG, MG, LU,
# BT and SP at classes S and W on 1 and 2 ranks (BT and SP on 1 and 4, their rule), PHOLD over
# remote fraction and lookahead with both synchronisations, SWM's small problem and PS's load
# sweep on a smaller torus. Two runs of it, before and after a
# change, are the SP2 paper's old/new bars (hpceval compare).
_NAS = {"min-reps": "3", "max-reps": "10", "warmup": "0", "ranks": "1,2"}
register_suite(Suite(
    "nas", "SP2 application set: NAS CG, MG, LU, BT and SP (classes S and W, verified), "
    "PHOLD discrete-event simulation over remote fraction and lookahead, SWM (small problem) "
    "and the PS network simulator's load sweep (1 and 2 ranks; a few minutes on 2 cores)",
    (("npb-cg", {**_NAS, "class": "S"}), ("npb-cg", {**_NAS, "class": "W"}),
     ("npb-mg", {**_NAS, "class": "S"}), ("npb-mg", {**_NAS, "class": "W"}),
     ("npb-lu", {**_NAS, "class": "S"}), ("npb-lu", {**_NAS, "class": "W"}),
     ("npb-bt", {**_NAS, "class": "S", "ranks": "1,4"}),
     ("npb-bt", {**_NAS, "class": "W", "ranks": "1"}),
     ("npb-sp", {**_NAS, "class": "S", "ranks": "1,4"}),
     ("npb-sp", {**_NAS, "class": "W", "ranks": "1"}),
     ("phold", {"min-reps": "3", "max-reps": "10", "ranks": "1,2"}),
     # SWM's small problem for a day, PS on a 16 x 16 torus for 10,000 cycles, 5% to 90%
     ("swm", {**_NAS, "problem": "small"}),
     ("ps", {**_NAS, "routers": "16x16", "cycles": "10000", "loads": "5,20,40,60,80,90"}))))

def study_suite() -> Suite:
    """The whole study (every area, planned for the allocation: rank ladders, the seeds' problem
    sizes), from the entries each benchmark's catalog module gave (register_study): made once
    every module, the package's and those from outside, has been imported. Meant to run within
    a budget: `hpceval run study --budget 1h` divides it over the areas."""
    return Suite(
        "study", "the whole study planned for the allocation: memory, communication, kernels, "
        "application proxies, NAS and the LANL applications, with rank ladders 1, 2, 4 .. K "
        "ranks in a node and 1, 2, 4 .. N nodes (use with --budget)", tuple(STUDY))


# Accepting a machine (issue #51): every node at once (triad and multiply-add rate, one rank a
# node), then the network map (every pair of nodes in P/2 rounds, sampled above 64 nodes) and
# the effective bisection bandwidth (8 random matchings): three launches whatever the size, the
# outlier rule naming the slow node and the bad link (hpceval show). On one node: the node checks, and a note that the network needs two.
register_suite(Suite(
    "acceptance", "accepting a machine: every node at once (STREAM triad, multiply-add rate), "
    "the network map (latency and bandwidth of every pair of nodes, one rank a node) and the "
    "effective bisection bandwidth (random matchings), the "
    "outliers named by `hpceval show` (use on an allocation of nodes; --budget fits it)",
    (("nodecheck", {"budget": "0.2", "max-reps": "50"}),
     ("netmap", {"budget": "0.05", "max-reps": "50", "min-nodes": "2"}),
     ("bisection", {"budget": "0.05", "max-reps": "50", "min-nodes": "2"}),
     ("congestion", {"budget": "0.05", "max-reps": "50", "min-nodes": "4"}))))
