/* refine.c - bracket protocol switches by bisection (see refine.h). */
#include "refine.h"
#include "comm.h"

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

/* How sharply the curve bends across interval (l[1], h[0]): |ln| of the
 * ratio of the two side lines' slopes, each at least a thousandth of the
 * cost per byte at the interval's lower end (flat or noisy lines: 0). */
static double kink(const comm_sized l[2], const comm_sized h[2])
{
    double floor = 1e-3 * l[1].t / (double)(l[1].n > 0 ? l[1].n : 1);
    double sl = (l[1].t - l[0].t) / (double)(l[1].n - l[0].n);
    double sh = (h[1].t - h[0].t) / (double)(h[1].n - h[0].n);
    return fabs(log(fmax(sh, floor) / fmax(sl, floor)));
}

/* The rank of interval (a, b) by its step (by_height): a step of at least
 * 0.5 (relative: 1.5x) first, the smallest size first among them (the first
 * protocol change is the eager limit; a later step, between 110 and 256 KB
 * here under both MPIs, can be taller), then the others by height. */
static double by_height(const comm_sized *a, const comm_sized *b)
{
    double h = fabs(b->t - a->t) / fmin(a->t, b->t);
    return h >= 0.5 ? 1e6 - log((double)a->n + 1.0) : h;
}

/* Rank 0: a suspected interval outside ranges (closed[0..nclosed-1], pairs
 * of sizes), or -1; *rank gets its rank (below). Suspected: both lines
 * miss by more than tol, or one of them by more than 3 tol (a step on a
 * steep, bending curve, as the eager side on a busy machine, where the line
 * through the eager points lands near the step's top). Ranked: a drop (the
 * larger size faster) first, then those both lines miss (the bend beside a
 * sweep point belongs to the side with the step), then the sharpest bend. No Hockney
 * region's time falls as n grows, so a drop is a protocol change (an eager
 * limit set above the rendezvous' crossover, as 16 KiB on shared memory);
 * and a protocol change alters the cost per byte (eager copies twice,
 * rendezvous once: the slope fell 5x at 16 KiB here), while the eager
 * side's copies step up at sizes of their own (1.3, 2.4, 3.7, 6.6, 10.4
 * KiB here, each 5-10%, as high as the switch) with the slope unchanged.
 * Ranked by height, those used up the budget before the switch. A curve
 * whose protocol change is its tallest step by construction (eager.c: a
 * factor, where a copy steps by 5-15%) ranks by height (by_height). */
static int suspect(const comm_sized *d, int nd, const comm_refine_cfg *cfg,
                   const long long *closed, int nclosed, comm_sized lo[2], comm_sized hi[2],
                   double *rank)
{
    int pick = -1;
    double best = -1;
    for (int i = 0; i + 1 < nd; i++) {
        comm_sized l[2], h[2];
        if (d[i + 1].n - d[i].n <= cfg->resolution || !side_points(d, nd, i, l, h))
            continue;
        double up = miss(through(&l[0], &l[1]), &h[0]), down = miss(through(&h[0], &h[1]), &l[1]);
        int skip = fmin(up, down) <= cfg->tol && fmax(up, down) <= 3 * cfg->tol;
        for (int c = 0; c < nclosed && !skip; c++)
            skip = d[i].n >= closed[2 * c] && d[i + 1].n <= closed[2 * c + 1];
        double r = cfg->by_height ? by_height(&d[i], &d[i + 1])
                                  : (d[i + 1].t < d[i].t ? 1e6 : 0) +
                                        (fmin(up, down) > cfg->tol ? 1e3 : 0) + kink(l, h);
        if (!skip && r > best) {
            best = r;
            pick = i;
            lo[0] = l[0], lo[1] = l[1], hi[0] = h[0], hi[1] = h[1];
        }
    }
    *rank = best;
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

/* A suspected switch being narrowed: its ends as last measured together
 * (times valid on rank 0) and the bisection steps taken. */
typedef struct {
    comm_sized a, b;
    int steps;
    double rank;  /* its suspicion's rank (suspect) */
    comm_sized pa, pb;  /* the ends before the last halving */
    int backed;         /* 1 once it went back to them (bisect_step) */
} bracket;

enum { OPEN, FOUND, GIVEN_UP };

/* One bisection step of o (collective; every rank holds the same sizes):
 * the midpoint is measured between fresh measurements of the two ends (a,
 * m, b back to back; the ends' are checks that write no records, the
 * midpoint is appended to pts) and the half whose ends differ more keeps
 * the bracket. A step adds its height to one half, while the smooth change
 * of the curve splits between the halves; unlike lines drawn from outside
 * the bracket, this does not need the region to be straight (an eager
 * region rarely is over a factor of two). Only the three points measured
 * together decide: the machine's state drifts while a sweep runs (2-3x on
 * the eager side on a busy machine), and an end measured seconds earlier
 * would make that drift a step or hide the real one. FOUND when the bracket
 * is narrowed to the resolution and its ends still differ by a step;
 * GIVEN_UP when the step faded (noise, or a gradual change such as a cache
 * filling up) or was not there when its ends were measured again
 * (verdict); but the first time a halved bracket has lost its step, the
 * midpoint that chose the half is taken for a transient and the bracket
 * goes back to the interval it split (a transient midpoint sent 1 MPICH
 * sweep in 100 into the wrong half, to a 32-byte bracket beside the limit). */
static int bisect_step(bracket *o, comm_sized *pts, int *npts, const comm_refine_cfg *cfg,
                       comm_measure_fn fn, void *ctx, MPI_Comm comm, int rank)
{
    if (o->steps > 0 && !still_stepped(&o->a, &o->b, pts, npts, fn, ctx, comm, rank)) {
        if (o->backed || o->steps < 2)
            return GIVEN_UP;
        /* The halves were chosen by a midpoint that lied (a transient: the step is gone from
         * the half kept): once, go back to the interval it split, judged afresh. */
        o->a = o->pa, o->b = o->pb, o->backed = 1;
        return OPEN;
    }
    comm_sized lo = measure(o->a.n, 0, pts, npts, fn, ctx);
    comm_sized m = measure(o->a.n + (o->b.n - o->a.n) / 2, 1, pts, npts, fn, ctx);
    comm_sized hi = measure(o->b.n, 0, pts, npts, fn, ctx);
    int v[2];
    verdict(&lo, &m, &hi, o->steps++ == 0, cfg->tol, comm, rank, v);
    if (!v[1])
        return GIVEN_UP;
    o->pa = lo, o->pb = hi;
    if (v[0])
        o->a = m, o->b = hi;
    else
        o->a = lo, o->b = m;
    if (o->b.n - o->a.n > cfg->resolution)
        return OPEN;
    return still_stepped(&o->a, &o->b, pts, npts, fn, ctx, comm, rank) ? FOUND : GIVEN_UP;
}

/* Rank 0: the open bracket to narrow next (the best ranked suspicion, so
 * one switch is narrowed to the end before the next), or -1. */
static int next_bracket(const bracket *o, int n)
{
    int pick = -1;
    for (int i = 0; i < n; i++)
        if (pick < 0 || o[i].rank > o[pick].rank)
            pick = i;
    return pick;
}

/* Rank 0: every suspected interval outside ranges (pairs of sizes: the
 * open and given-up brackets) becomes an open bracket, up to max. */
static void add_suspects(comm_sized *pts, int npts, const comm_refine_cfg *cfg, bracket *open,
                         int *nopen, long long *ranges, int *nranges, int max)
{
    comm_sized lo[2], hi[2];
    double rank;
    qsort(pts, (size_t)npts, sizeof *pts, by_size);
    while (*nopen < max && suspect(pts, npts, cfg, ranges, *nranges, lo, hi, &rank) >= 0) {
        open[(*nopen)++] = (bracket){lo[1], hi[0], 0, rank, lo[1], hi[0], 0};
        ranges[2 * *nranges] = lo[1].n;
        ranges[2 * (*nranges)++ + 1] = hi[0].n;
    }
}

int comm_refine_switches(comm_sized *pts, int *npts, const comm_refine_cfg *cfg,
                         comm_measure_fn fn, void *ctx, MPI_Comm comm)
{
    int rank, found = 0, limit = *npts + cfg->max_points, nopen = 0, nranges = 0;
    int max = *npts + cfg->max_points;  /* suspects: at most one per interval */
    MPI_Comm_rank(comm, &rank);
    bracket *open = malloc(sizeof *open * (size_t)(max + 1));
    long long *ranges = malloc(sizeof *ranges * 2 * (size_t)(max + 1));
    if (!open || !ranges)
        abort();
    for (;;) {
        /* Judged with every point so far: new suspects join the open ones. */
        int i = -1;
        if (rank == 0) {
            add_suspects(pts, *npts, cfg, open, &nopen, ranges, &nranges, max);
            i = *npts < limit ? next_bracket(open, nopen) : -1;
        }
        MPI_Bcast(&i, 1, MPI_INT, 0, comm);
        if (i < 0)
            break;
        /* Every rank bisects the same sizes; only rank 0's times decide. */
        bracket o = rank == 0 ? open[i] : (bracket){0};
        MPI_Bcast(&o, (int)sizeof o, MPI_BYTE, 0, comm);
        int state = bisect_step(&o, pts, npts, cfg, fn, ctx, comm, rank);
        found += state == FOUND;
        if (rank == 0 && state == OPEN)
            open[i] = o;
        else if (rank == 0)
            open[i] = open[--nopen];  /* closed; a given-up range stays in ranges */
    }
    free(open);
    free(ranges);
    return found;
}

void comm_sweep(const long long *sizes, int nsizes, int by_height, comm_measure_fn fn,
                void *ctx, MPI_Comm comm)
{
    comm_refine_cfg rc = {(int)hpc_opt_int("refine"), hpc_opt_int("resolution"),
                          hpc_opt_double("refine-tol"), by_height};
    comm_sized *pts = malloc(sizeof *pts * (size_t)(nsizes + rc.max_points));
    if (!pts)
        abort();
    int npts = 0;
    for (int i = 0; i < nsizes; i++)
        fn(sizes[i], 1, ctx, &pts[npts++]);
    comm_refine_switches(pts, &npts, &rc, fn, ctx, comm);
    free(pts);
}

void comm_pair_sweep(const long long *sizes, int nsizes, long long max, int by_height,
                     comm_measure_fn fn, char **sbuf, char **rbuf)
{
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, hpc_rank < 2 ? 0 : MPI_UNDEFINED, hpc_rank, &pair);
    hpc_inject_first_point();
    if (hpc_rank < 2) {
        *sbuf = comm_alloc((size_t)max);
        *rbuf = comm_alloc((size_t)max);
        comm_sweep(sizes, nsizes, by_height, fn, &pair, pair);
        free(*sbuf);
        free(*rbuf);
        MPI_Comm_free(&pair);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
}
