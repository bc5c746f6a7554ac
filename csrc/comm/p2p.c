/* p2p.c - point-to-point latency and bandwidth: every mode, protocol and
 * placement pattern (COMMTEST, EV7, SP2 studies).
 *
 * Modes: pingpong (half a round trip; bandwidth = n / latency), swap (both
 * ends send and receive at once; bandwidth = 2n / time of one exchange, the
 * bytes one process moves), stream (osu_bw: a window of non-blocking sends,
 * then an empty acknowledgement; bandwidth = W n / time of a window) and
 * bistream (osu_bibw: both ends stream; 2 W n / time).
 * Protocols: send, sendrecv, isend, ssend, rsend, persistent, put-fence,
 * get-fence, put-lock, get-lock (one-sided, fence or passive target).
 * Patterns: 0-1, intra-pairs, 0-k, ring, cross-pairs; with several pairs at
 * once each sample is the slowest pair's time, so contention shows.
 * Data are checked after every sample, outside the timed region.
 */
#include "lib/comm.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "sizes", .type = HPC_SIZES,
     .def = "0,1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,"
            "262144,524288,1048576,2097152,4194304",
     .min = 0, .max = INT_MAX - 1, .help = "message sizes in bytes"},
    {.name = "modes", .type = HPC_CHOICES, .def = "pingpong", .choices = COMM_MODES, .all = 1,
     .help = "modes to measure"},
    {.name = "protocols", .type = HPC_CHOICES, .def = "send", .choices = COMM_PROTOS, .all = 1,
     .help = "protocols to measure (unsupported mode/protocol pairs are skipped with a warning, "
             "silently with all)"},
    {.name = "pattern", .type = HPC_CHOICE, .def = "0-1", .choices = COMM_PATTERNS,
     .help = "placement of the communicating ranks"},
    {.name = "peer", .type = HPC_INT, .def = "-1", .min = -1, .max = INT_MAX,
     .help = "pattern 0-k: the peer k (-1: the first rank on another node)"},
    {.name = "ranks-per-node", .type = HPC_INT, .def = "0", .min = 0, .max = INT_MAX,
     .help = "override node identity: ranks r/N share a node (0: from MPI shared memory)"},
    {.name = "window", .type = HPC_INT, .def = "64", .min = 1, .max = 4096,
     .help = "messages in flight per window (stream modes), as osu_bw"},
    {.name = "refine", .type = HPC_INT, .def = "0", .min = 0, .max = 1000,
     .help = "sizes added at most per mode/protocol where the curve bends (as mpptest)"},
    {.name = "refine-tol", .type = HPC_DOUBLE, .def = "0.1", .min = 0.001, .max = 10,
     .help = "refine where a point is this far (relative) off the line through its neighbours"},
    {.name = "flush", .type = HPC_SIZE, .def = "0", .min = 0, .max = 1LL << 34,
     .help = "bytes written between samples to evict caches (0: no invalidation)"},
    COMM_PAGES_OPTION,
    {0}};

static const char *const MODES[] = {"pingpong", "swap", "stream", "bistream"};
static const char *const PROTOS[] = {"send", "sendrecv", "isend", "ssend", "rsend",
                                     "persistent", "put-fence", "get-fence", "put-lock",
                                     "get-lock"};

typedef struct {
    long long bytes;
    const char *mode, *proto, *pattern, *ranks;
    int window;
} point_params;

static void write_params(hpc_json *j, const void *ctx)
{
    const point_params *p = ctx;
    hpc_json_int(j, "bytes", p->bytes);
    hpc_json_str(j, "mode", p->mode);
    hpc_json_str(j, "protocol", p->proto);
    hpc_json_str(j, "pattern", p->pattern);
    hpc_json_str(j, "ranks", p->ranks);
    if (strstr(p->mode, "stream"))
        hpc_json_int(j, "window", p->window);
}

typedef struct {
    long long n;
    double t;  /* median time of one operation */
} sized_time;

static int by_size(const void *a, const void *b)
{
    long long x = ((const sized_time *)a)->n, y = ((const sized_time *)b)->n;
    return (x > y) - (x < y);
}

/* Adaptive refinement (mpptest, SKaMPI): a measured point that lies off the
 * straight line through its neighbours marks a bend (a protocol switch); the
 * widest interval beside the worst such point is split. -1: nothing left. */
static long long next_size(sized_time *d, int nd, double tol, long long max)
{
    qsort(d, (size_t)nd, sizeof *d, by_size);
    double best = tol;
    long long pick = -1;
    for (int i = 1; i + 1 < nd; i++) {
        const sized_time *a = &d[i - 1], *c = &d[i], *b = &d[i + 1];
        double lin = a->t + (b->t - a->t) * (double)(c->n - a->n) / (double)(b->n - a->n);
        double dev = fabs(c->t - lin) / (c->t > 0 ? c->t : 1e-300);
        if (dev <= best)
            continue;
        /* split the wider side, if it still has room */
        const sized_time *lo = (c->n - a->n >= b->n - c->n) ? a : c;
        const sized_time *hi = lo == a ? c : b;
        if (hi->n - lo->n < 2)
            continue;
        long long mid = hi->n >= 4 * (lo->n > 0 ? lo->n : 1)
                            ? (long long)sqrt((double)(lo->n > 0 ? lo->n : 1) * (double)hi->n)
                            : (lo->n + hi->n) / 2;
        if (mid <= lo->n || mid >= hi->n || mid > max)
            continue;
        best = dev;
        pick = mid;
    }
    return pick;
}

/* What the options select. */
typedef struct {
    int mode_on[4], proto_on[10];
    int run[4][10];        /* the combinations that run */
    int one_sided;         /* some of them need windows */
    const char *pattern;
    comm_role *role;       /* every world rank's */
    char ranks[64];        /* the "ranks" param */
    const long long *sizes;
    int nsizes, refine;
    long long max;
} plan;

/* The combinations that run; one that cannot is skipped (hpc_begin warns), and none at
 * all is a usage error. */
static void combinations(plan *pl)
{
    int ring = strcmp(pl->pattern, "ring") == 0, any = 0;
    for (int m = 0; m < 4; m++)
        for (int p = 0; p < 10; p++) {
            pl->run[m][p] = pl->mode_on[m] && pl->proto_on[p] &&
                            !comm_proto_unsupported((comm_mode)m, (comm_proto)p) &&
                            !(ring && m != MODE_SWAP);
            any |= pl->run[m][p];
            pl->one_sided |= pl->run[m][p] && p >= PROTO_PUT_FENCE;
        }
    hpc_usage_check(!any, "no runnable mode/protocol combination in --modes %s --protocols %s%s",
                    hpc_opt_str("modes"), hpc_opt_str("protocols"),
                    ring ? " (pattern ring needs mode swap)" : "");
}

static void parse(plan *pl)
{
    memset(pl, 0, sizeof *pl);
    hpc_usage_check(hpc_nranks < 2, "p2p needs at least 2 MPI ranks, got %d", hpc_nranks);
    hpc_opt_chosen("modes", pl->mode_on);
    hpc_opt_chosen("protocols", pl->proto_on);
    pl->pattern = hpc_opt_str("pattern");
    int *node = malloc((size_t)hpc_nranks * sizeof *node);
    pl->role = malloc((size_t)hpc_nranks * sizeof *pl->role);
    if (!node || !pl->role)
        abort();
    int peer = (int)hpc_opt_int("peer");
    hpc_usage_check(peer >= hpc_nranks, "--peer %d: there are only ranks 0..%d", peer,
                    hpc_nranks - 1);
    int nnodes = comm_nodes((int)hpc_opt_int("ranks-per-node"), node);
    const char *e = comm_pattern(pl->pattern, peer, node, nnodes, pl->role);
    hpc_usage_check(e != NULL, "%s", e);
    free(node);
    combinations(pl);
    pl->max = comm_opt_sizes(&pl->sizes, &pl->nsizes);
    pl->refine = (int)hpc_opt_int("refine");
    if (strcmp(pl->pattern, "0-1") == 0 || strcmp(pl->pattern, "0-k") == 0)
        snprintf(pl->ranks, sizeof pl->ranks, "0-%d", pl->role[0].to);
    else
        snprintf(pl->ranks, sizeof pl->ranks, "%s/%d", pl->pattern, hpc_nranks);
}

/* Skipped combinations the user named (with "all" they are skipped silently). */
static void warn_skipped(const plan *pl)
{
    if (strcmp(hpc_opt_str("modes"), "all") == 0 || strcmp(hpc_opt_str("protocols"), "all") == 0)
        return;
    for (int m = 0; m < 4; m++)
        for (int p = 0; p < 10; p++)
            if (pl->mode_on[m] && pl->proto_on[p] && !pl->run[m][p]) {
                const char *why = comm_proto_unsupported((comm_mode)m, (comm_proto)p);
                hpc_warn("skipped mode %s with protocol %s: %s", MODES[m], PROTOS[p],
                         why ? why : "pattern ring needs mode swap");
            }
}

/* Measure size n and write its records; returns the median time of one operation
 * (rank 0). */
static double measure(const plan *pl, MPI_Comm act, const comm_p2p_cfg *cfg, comm_bufs *b,
                      long long n)
{
    comm_mode m = cfg->mode;
    comm_point pt;
    comm_p2p_point(act, &pl->role[hpc_rank], cfg, b, (size_t)n, &pt);
    point_params pp = {n, MODES[m], PROTOS[cfg->proto], pl->pattern, pl->ranks, cfg->window};
    if (m == MODE_PINGPONG || m == MODE_SWAP)
        comm_emit("latency", "us", "lower", &pt, 1e6, 0, write_params, &pp);
    int w = m >= MODE_STREAM ? cfg->window : 1;
    double moved = (double)n * w * (m == MODE_SWAP || m == MODE_BISTREAM ? 2 : 1);
    if (n > 0)  /* bytes per us = MB/s */
        comm_emit("bandwidth", "MB/s", "higher", &pt, moved / 1e6, 1, write_params, &pp);
    hpc_stats st = {0};
    if (hpc_rank == 0)
        hpc_stats_compute(pt.t, pt.n, &st);
    free(pt.t);
    return st.median;
}

/* One mode/protocol: the listed sizes, then up to --refine more where the curve bends. */
static void sweep(const plan *pl, MPI_Comm act, const comm_p2p_cfg *cfg, comm_bufs *b,
                  sized_time *done)
{
    double refine_tol = hpc_opt_double("refine-tol");
    int nd = 0;
    for (int i = 0; i < pl->nsizes + pl->refine; i++) {
        long long n = i < pl->nsizes ? pl->sizes[i] : -1;
        if (i >= pl->nsizes) {
            if (hpc_rank == 0)
                n = next_size(done, nd, refine_tol, pl->max);
            MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, act);
            if (n < 0)
                break;
        }
        double t = measure(pl, act, cfg, b, n);
        if (hpc_rank == 0)
            done[nd++] = (sized_time){n, t};
    }
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "p2p",
             "Point-to-point latency and bandwidth: ping-pong, swap, streaming; every "
             "protocol; COMMTEST placement patterns.",
             options, MPI_THREAD_SINGLE);
    plan pl;
    parse(&pl);
    sized_time *done = malloc(sizeof *done * (size_t)(pl.nsizes + pl.refine));
    if (!done)
        abort();

    hpc_begin(1, NULL);
    warn_skipped(&pl);
    MPI_Comm act;
    int active = pl.role[hpc_rank].active;
    MPI_Comm_split(MPI_COMM_WORLD, active ? 0 : MPI_UNDEFINED, hpc_rank, &act);
    hpc_inject_first_point();
    if (active) {
        comm_bufs b;
        comm_bufs_init(&b, (size_t)pl.max, act, pl.one_sided);
        for (int m = 0; m < 4; m++)
            for (int p = 0; p < 10; p++)
                if (pl.run[m][p]) {
                    comm_p2p_cfg cfg = {(comm_mode)m, (comm_proto)p, (int)hpc_opt_int("window"),
                                        (size_t)hpc_opt_int("flush")};
                    sweep(&pl, act, &cfg, &b, done);
                }
        comm_bufs_free(&b, pl.one_sided);
        MPI_Comm_free(&act);
    }
    free(pl.role);
    free(done);
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
