/* refine.c - bracket protocol switches by bisection (see refine.h). */
#include "refine.h"

#include <math.h>
#include <stdlib.h>

int comm_refining;

typedef struct {
    double a, b;  /* t = a + b n */
} line;


static int by_size(const void *x, const void *y)
{
    long long p = ((const comm_sized *)x)->n, q = ((const comm_sized *)y)->n;
    return (p > q) - (p < q);
}

static line through(const comm_sized *p, const comm_sized *q)
{
    double b = (q->t - p->t) / (double)(q->n - p->n);
    return (line){p->t - b * (double)p->n, b};
}

static double miss(line l, const comm_sized *p)
{
    double fit = l.a + l.b * (double)p->n;
    return fabs(p->t - fit) / (p->t > 0 ? p->t : 1e-300);
}

/* The points of the lines beside interval (i, i+1): i and the nearest point
 * at or below 3/4 of it, i+1 and the nearest point at or above 4/3 of it
 * (points closer together would make the slope mostly noise). */
static int side_points(const comm_sized *d, int nd, int i, comm_sized lo[2], comm_sized hi[2])
{
    int j = i - 1, k = i + 2;
    while (j >= 0 && (double)d[j].n > 0.75 * (double)d[i].n)
        j--;
    while (k < nd && (double)d[k].n < (4.0 / 3.0) * (double)d[i + 1].n)
        k++;
    if (j < 0 || k >= nd)
        return 0;
    lo[0] = d[j], lo[1] = d[i], hi[0] = d[i + 1], hi[1] = d[k];
    return 1;
}

/* Rank 0: the suspected interval outside the given-up ranges (closed[0..
 * nclosed-1], pairs of sizes) whose jump is largest (the smaller of the two
 * lines' misses), a drop before any rise, or -1. Suspected: both lines miss by more than tol, or
 * one of them by more than 3 tol (a step on a steep, bending curve, as the
 * eager side on a busy machine, where the line through the eager points
 * lands near the step's top). Largest first: a protocol switch is a big
 * step, and on a busy machine the noise makes small ones that must not use
 * up the refinement's budget before it. A drop (the larger size faster) is
 * taken before every rise: no Hockney region's time falls as n grows, so a
 * drop is a protocol change (an eager limit set above the rendezvous'
 * crossover, as 16 KiB on shared memory), while an eager side copying
 * through fragments rises in steps that are real but not the switch, and
 * they used up the 24 points before the drop's 9 bisections (2 runs in 11). */
static int suspect(const comm_sized *d, int nd, const comm_refine_cfg *cfg,
                   const long long *closed, int nclosed, comm_sized lo[2], comm_sized hi[2])
{
    int pick = -1, best_drop = 0;
    double best = -1;
    for (int i = 0; i + 1 < nd; i++) {
        comm_sized l[2], h[2];
        if (d[i + 1].n - d[i].n <= cfg->resolution || !side_points(d, nd, i, l, h))
            continue;
        double up = miss(through(&l[0], &l[1]), &h[0]), down = miss(through(&h[0], &h[1]), &l[1]);
        double jump = fmin(up, down);
        int skip = jump <= cfg->tol && fmax(up, down) <= 3 * cfg->tol;
        for (int c = 0; c < nclosed && !skip; c++)
            skip = d[i].n >= closed[2 * c] && d[i + 1].n <= closed[2 * c + 1];
        int drop = d[i + 1].t < d[i].t;
        if (!skip && (drop > best_drop || (drop == best_drop && jump > best))) {
            best = jump;
            best_drop = drop;
            pick = i;
            lo[0] = l[0], lo[1] = l[1], hi[0] = h[0], hi[1] = h[1];
        }
    }
    return pick;
}

/* Rank 0: do the bracket's ends still differ by more than their noise (the
 * 95% CIs of their medians do not overlap)? */
static int stepped(const comm_sized *a, const comm_sized *b)
{
    return a->hi < b->lo || b->hi < a->lo;
}

/* Measure n for the bisection: kept (a record, appended to pts) or a check
 * that writes nothing. */
static comm_sized measure(long long n, int keep, comm_sized *pts, int *npts, comm_measure_fn fn,
                          void *ctx)
{
    comm_sized m = {n, 0, 0, 0};
    comm_refining = keep;
    fn(n, keep, ctx, &m);
    comm_refining = 0;
    if (keep)
        pts[(*npts)++] = m;
    return m;
}

/* Rank 0's verdicts on one bisection step (a, m, b measured together),
 * broadcast: [0] 1 when the step lies in the upper half (m, b); [1] 0 when
 * the interval is given up at once: on its first step (first), the ends
 * measured now no longer differ by tol (relative) beyond their CIs (the
 * suspicion came from points measured in another state of the machine). */
static void verdict(const comm_sized *a, const comm_sized *m, const comm_sized *b, int first,
                    double tol, MPI_Comm comm, int rank, int v[2])
{
    v[0] = rank == 0 && fabs(b->t - m->t) > fabs(m->t - a->t);
    v[1] = rank != 0 || !first ||
           (stepped(a, b) && fabs(b->t - a->t) > tol * fmin(a->t, b->t));
    MPI_Bcast(v, 2, MPI_INT, 0, comm);
}

/* Rank 0's judgement, broadcast: do the bracket's ends still differ by a
 * step? If not, both are measured again together (checks) and judged once
 * more: one disturbed point, its CI blown wide, must not end a bracket. */
static int still_stepped(comm_sized *a, comm_sized *b, comm_sized *pts, int *npts,
                         comm_measure_fn fn, void *ctx, MPI_Comm comm, int rank)
{
    for (int tries = 0;; tries++) {
        int step = rank == 0 && stepped(a, b);
        MPI_Bcast(&step, 1, MPI_INT, 0, comm);
        if (step || tries == 1)
            return step;
        *a = measure(a->n, 0, pts, npts, fn, ctx);
        *b = measure(b->n, 0, pts, npts, fn, ctx);
    }
}

/* Bisect (a, b): the midpoint is measured and the half whose ends differ
 * more keeps the bracket. A step adds its height to one half, while the
 * smooth change of the curve splits between the halves; unlike lines drawn
 * from outside the bracket, this does not need the region to be straight
 * (an eager region rarely is over a factor of two). Both ends are measured
 * again right beside the midpoint (a, m, b, back to back) and only those
 * three decide: the machine's state drifts while a sweep runs (2-3x on the
 * eager side on a busy machine), and an end measured seconds earlier would
 * make that drift a step or hide the real one. The ends' checks write no
 * records (each size keeps its first); every kept midpoint is appended to
 * pts. Returns 1 when the bracket was narrowed to the resolution and its
 * ends, measured together, still differ by a step: a switch; 0 when the
 * step faded (noise, or a gradual change such as a cache filling up) or
 * was not there when its ends were measured again (verdict). */
static int bisect(comm_sized *pts, int *npts, int limit, comm_sized a, comm_sized b,
                  const comm_refine_cfg *cfg, comm_measure_fn fn, void *ctx, MPI_Comm comm,
                  int rank)
{
    for (int first = 1; b.n - a.n > cfg->resolution && *npts < limit; first = 0) {
        if (!first && !still_stepped(&a, &b, pts, npts, fn, ctx, comm, rank))
            return 0;
        comm_sized lo = measure(a.n, 0, pts, npts, fn, ctx);
        comm_sized m = measure(a.n + (b.n - a.n) / 2, 1, pts, npts, fn, ctx);
        comm_sized hi = measure(b.n, 0, pts, npts, fn, ctx);
        int v[2];
        verdict(&lo, &m, &hi, first, cfg->tol, comm, rank, v);
        if (!v[1])
            return 0;
        if (v[0])
            a = m, b = hi;
        else
            a = lo, b = m;
    }
    return b.n - a.n <= cfg->resolution && still_stepped(&a, &b, pts, npts, fn, ctx, comm, rank);
}

int comm_refine_switches(comm_sized *pts, int *npts, const comm_refine_cfg *cfg,
                         comm_measure_fn fn, void *ctx, MPI_Comm comm)
{
    int rank, found = 0, limit = *npts + cfg->max_points, nclosed = 0;
    MPI_Comm_rank(comm, &rank);
    long long *closed = malloc(sizeof *closed * 2 * (size_t)(cfg->max_points + 1));
    if (!closed)
        abort();
    for (;;) {
        /* Judged with every point so far: a bracket already narrowed is
         * closed, and beside it one of the two lines still fits. */
        comm_sized lo[2], hi[2];
        int i = -1;
        if (rank == 0) {
            qsort(pts, (size_t)*npts, sizeof *pts, by_size);
            i = *npts < limit ? suspect(pts, *npts, cfg, closed, nclosed, lo, hi) : -1;
        }
        MPI_Bcast(&i, 1, MPI_INT, 0, comm);
        if (i < 0)
            break;
        /* Every rank bisects the same sizes; only rank 0's times decide. */
        MPI_Bcast(&lo[1], (int)sizeof lo[1], MPI_BYTE, 0, comm);
        MPI_Bcast(&hi[0], (int)sizeof hi[0], MPI_BYTE, 0, comm);
        long long ab[2] = {lo[1].n, hi[0].n};
        if (bisect(pts, npts, limit, lo[1], hi[0], cfg, fn, ctx, comm, rank))
            found++;
        else if (rank == 0) {
            closed[2 * nclosed] = ab[0];
            closed[2 * nclosed + 1] = ab[1];
            nclosed++;
        }
    }
    free(closed);
    return found;
}
