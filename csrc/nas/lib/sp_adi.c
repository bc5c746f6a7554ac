/* sp_adi.c - NPB SP's time step: the approximate factorisation diagonalised (Pulliam and
 * Chaussee), so that each direction's factor is three scalar pentadiagonal systems along its
 * lines (the eigenvalues u, u + c and u - c of the flux Jacobian, with the fourth-difference
 * dissipation made implicit), between the transforms by the eigenvector matrices (NPB's
 * txinvr, x_solve + ninvr, y_solve + pinvr, z_solve + tzetar), then u = u + du (add).
 * The lines run through lib/adi_pipe.h: across the ranks a line passes its last two rows'
 * normalised coefficients and right-hand sides forward and its first two solutions back. */
#include "sp_adi.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define C1C2 (C1 * C2)
#define C1C5 (C1 * C5)
#define C3C4 (C3 * C4)
#define BT_ 0.70710678118654752440   /* NPB's bt = sqrt(0.5) */

const hpc_phase_def sp_phase_defs[SP_NPHASES] = {
    {"rhs", HPC_KIND_COMPUTE},    {"norm", HPC_KIND_COMPUTE},   {"halo", HPC_KIND_COMM},
    {"pipeline", HPC_KIND_COMM},  {"reduce", HPC_KIND_COMM},    {"xsolve", HPC_KIND_COMPUTE},
    {"ysolve", HPC_KIND_COMPUTE}, {"zsolve", HPC_KIND_COMPUTE}, {"add", HPC_KIND_COMPUTE}};

/* The sound speed at state q (NPB's speed). */
static inline double speed(const double *q)
{
    double r = 1.0 / q[0], sq = 0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) * r;
    return sqrt(C1C2 * r * (q[4] - sq));
}

/* NPB's rhon along direction d: the largest diffusion of the variables there. */
static inline double rhon(const lu_ctx *g, const double *q, int d)
{
    double ru1 = C3C4 * (1.0 / q[0]), dd = g->dir[d].d[0];   /* the five are equal (0.75, 1) */
    double a = dd + 4.0 / 3.0 * ru1, b = dd + C1C5 * ru1, c = dd + ru1;
    double m = a > b ? a : b;
    m = m > c ? m : c;
    return m > dd ? m : dd;
}

/* The line's velocity along d, rhon and speed at its points and the two ends' neighbours:
 * v[p + 1] for p = -1 .. len (NPB's cv, rhon and speed, once a point). */
static void line_state(const sp_ctx *sp, const double *u, size_t s, int d, int len,
                       double (*v)[3])
{
    for (int p = -1; p <= len; p++) {
        const double *q = u + (ptrdiff_t)p * (ptrdiff_t)s;
        v[p + 1][0] = q[d + 1] * (1.0 / q[0]);
        v[p + 1][1] = rhon(sp->g, q, d);
        v[p + 1][2] = speed(q);
    }
}

/* The three pentadiagonal rows (a, b, c, d, e) of a point along d, global position gp of n0,
 * from the line state of it and its neighbours (v[0] before, v[1] it, v[2] after): out[q] for
 * the systems of u, u + c and u - c (NPB's lhs, lhsp, lhsm). */
static void rows(const sp_ctx *sp, const double (*v)[3], int d, int gp, int n0, double out[3][5])
{
    const lu_dir *dc = &sp->g->dir[d];
    double dt = sp->g->dt, t1 = dt * dc->t1, t2 = dt * dc->t2, com = dt * sp->g->dssp;
    double b = -t2 * v[0][0] - t1 * v[0][1];
    double c = 1.0 + 2.0 * t1 * v[1][1];
    double e = t2 * v[2][0] - t1 * v[2][1];
    /* the implicit dissipation: dt dssp times the fourth difference, one-sided at the ends */
    static const double W[5][5] = {{1, -4, 6, -4, 1}, {0, 0, 5, -4, 1}, {0, -4, 6, -4, 1},
                                   {1, -4, 6, -4, 0}, {1, -4, 5, 0, 0}};
    int w = gp == 2 ? 1 : gp == 3 ? 2 : gp == n0 - 2 ? 3 : gp == n0 - 1 ? 4 : 0;
    double base[5] = {com * W[w][0], b + com * W[w][1], c + com * W[w][2], e + com * W[w][3],
                      com * W[w][4]};
    double sm = t2 * v[0][2], sq = t2 * v[2][2];
    for (int q = 0; q < 3; q++)
        memcpy(out[q], base, sizeof base);
    out[1][1] -= sm;
    out[1][3] += sq;
    out[2][1] += sm;
    out[2][3] -= sq;
}

/* The components each system solves for: u for 0..2, u + c for 3, u - c for 4. */
static const int FIRST[3] = {0, 3, 4}, COUNT[3] = {3, 1, 1};

/* Row t of system q normalised (t >= 2), then subtracted from the next two rows, in NPB's
 * order; rows 0 and 1 are the two normalised rows before the line (zero at the global start). */
static inline void eliminate_row(double (*co)[3][5], double (*rr)[5], int q, int t, int n)
{
    int m0 = FIRST[q], m1 = FIRST[q] + COUNT[q];
    double *row = co[t][q];
    if (t >= 2) {
        double f = 1.0 / row[2];
        row[3] = f * row[3];
        row[4] = f * row[4];
        for (int m = m0; m < m1; m++)
            rr[t][m] = f * rr[t][m];
    }
    if (t >= 1 && t + 1 < n) {
        double *n1 = co[t + 1][q];
        n1[2] = n1[2] - n1[1] * row[3];
        n1[3] = n1[3] - n1[1] * row[4];
        for (int m = m0; m < m1; m++)
            rr[t + 1][m] = rr[t + 1][m] - n1[1] * rr[t][m];
    }
    if (t + 2 < n) {
        double *n2 = co[t + 2][q];
        n2[1] = n2[1] - n2[0] * row[3];
        n2[2] = n2[2] - n2[0] * row[4];
        for (int m = m0; m < m1; m++)
            rr[t + 2][m] = rr[t + 2][m] - n2[0] * rr[t][m];
    }
}

/* The three systems' eliminations over rows 0 .. n-1, interleaved row by row: three
 * independent chains of divisions for the processor to overlap. */
static void eliminate(double (*co)[3][5], double (*rr)[5], int n)
{
    for (int t = 0; t < n; t++)
        for (int q = 0; q < 3; q++)
            eliminate_row(co, rr, q, t, n);
}

/* Pack (out) or unpack two normalised rows: per row the (d, e) of each system, then the 5
 * right-hand sides: 11 doubles a row. */
static void two_rows(double (*co)[3][5], double (*rr)[5], double *msg, int out)
{
    for (int t = 0; t < 2; t++)
        for (int v = 0; v < 11; v++) {
            double *x = v < 6 ? &co[t][v / 2][3 + v % 2] : &rr[t][v - 6];
            if (out)
                msg[11 * t + v] = *x;
            else
                *x = msg ? msg[11 * t + v] : 0.0;
        }
}

/* The forward elimination of one line (adi_line_fn): in, the two rows before it (22 doubles;
 * NULL at the global start, where they are zero); out, its last two rows. The normalised
 * (d, e) of every point and system are kept in sp->de (6 doubles a point). */
static void forward(void *ctx, int d, int i, int j, int k, size_t s, int len, const double *in,
                    double *out)
{
    sp_ctx *sp = ctx;
    lu_ctx *g = sp->g;
    int gp = d == 0 ? g->ipt + i : d == 1 ? g->jpt + j : k;
    int n0 = d == 0 ? g->nx0 : d == 1 ? g->ny0 : g->nz0;
    double (*co)[3][5] = sp->co, (*rr)[5] = sp->rr;
    two_rows(co, rr, (double *)in, 0);
    const double *u = lu_at(g, g->u, i, j, k);
    double *r = lu_at(g, g->rsd, i, j, k), *de = sp->de + (r - g->rsd) / 5 * 6;
    line_state(sp, u, s, d, len, sp->lv);
    for (int p = 0; p < len; p++) {
        rows(sp, (const double (*)[3])sp->lv + p, d, gp + p, n0, co[p + 2]);
        memcpy(rr[p + 2], r + p * s, 5 * sizeof(double));
    }
    eliminate(co, rr, len + 2);
    size_t ds = s / 5 * 6;   /* the stride of de along the line */
    for (int p = 0; p < len; p++) {
        memcpy(r + p * s, rr[p + 2], 5 * sizeof(double));
        for (int q = 0; q < 3; q++) {
            de[p * ds + 2 * q] = co[p + 2][q][3];
            de[p * ds + 2 * q + 1] = co[p + 2][q][4];
        }
    }
    two_rows(co + len, rr + len, out, 1);
}

/* The back substitution along the same line: in, the solutions of the two points after it
 * (NULL at the global end, where they are zero); out, those of its first two points. */
static void backward(void *ctx, int d, int i, int j, int k, size_t s, int len, const double *in,
                     double *out)
{
    sp_ctx *sp = ctx;
    lu_ctx *g = sp->g;
    (void)d;
    static const int SYSTEM[5] = {0, 0, 0, 1, 2};
    double *r = lu_at(g, g->rsd, i, j, k);
    const double *de = sp->de + (r - g->rsd) / 5 * 6;
    double after[2][5] = {{0}};
    if (in)
        memcpy(after, in, sizeof after);
    for (int p = len - 1; p >= 0; p--) {
        double *x = r + p * s;
        const double *x1 = p + 1 < len ? r + (p + 1) * s : after[p + 1 - len];
        const double *x2 = p + 2 < len ? r + (p + 2) * s : after[p + 2 - len];
        const double *c = de + p * (s / 5 * 6);
        for (int m = 0; m < 5; m++)
            x[m] = x[m] - c[2 * SYSTEM[m]] * x1[m] - c[2 * SYSTEM[m] + 1] * x2[m];
    }
    memcpy(out, r, 5 * sizeof(double));
    memcpy(out + 5, r + s, 5 * sizeof(double));
}

/* The primitive quantities of NPB's compute_rhs at state q: 1/rho, the velocities, qs, speed. */
typedef struct {
    double ri, v[3], qs, ac;
} prim;

static inline prim primitive(const double *q)
{
    prim p;
    p.ri = 1.0 / q[0];
    for (int m = 0; m < 3; m++)
        p.v[m] = q[m + 1] * p.ri;
    double square = 0.5 * (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) * p.ri;
    p.qs = square * p.ri;
    p.ac = sqrt(C1C2 * p.ri * (q[4] - square));
    return p;
}

/* r = T^-1 r before the x solve (NPB's txinvr). */
static void txinvr(double *q, double *r)
{
    prim p = primitive(q);
    double ainv = 1.0 / p.ac, ac2inv = ainv * ainv;
    double t1 = C2 * ac2inv * (p.qs * r[0] - p.v[0] * r[1] - p.v[1] * r[2] - p.v[2] * r[3] + r[4]);
    double t2 = BT_ * p.ri * (p.v[0] * r[0] - r[1]);
    double t3 = (BT_ * p.ri * p.ac) * t1;
    double r0 = r[0], r2 = r[2], r3 = r[3];
    r[0] = r0 - t1;
    r[1] = -p.ri * (p.v[2] * r0 - r3);
    r[2] = p.ri * (p.v[1] * r0 - r2);
    r[3] = -t2 + t3;
    r[4] = t2 + t3;
}

/* Between the x and y solves (NPB's ninvr). */
static void ninvr(double *q, double *r)
{
    (void)q;
    double t1 = BT_ * r[2], t2 = 0.5 * (r[3] + r[4]), r0 = r[0], r3 = r[3], r4 = r[4];
    r[0] = -r[1];
    r[1] = r0;
    r[2] = BT_ * (r3 - r4);
    r[3] = -t1 + t2;
    r[4] = t1 + t2;
}

/* Between the y and z solves (NPB's pinvr). */
static void pinvr(double *q, double *r)
{
    (void)q;
    double t1 = BT_ * r[0], t2 = 0.5 * (r[3] + r[4]), r1 = r[1], r3 = r[3], r4 = r[4];
    r[0] = BT_ * (r3 - r4);
    r[1] = -r[2];
    r[2] = r1;
    r[3] = -t1 + t2;
    r[4] = t1 + t2;
}

/* After the z solve, back to the conserved variables (NPB's tzetar). */
static void tzetar(double *q, double *r)
{
    prim p = primitive(q);
    double acinv = 1.0 / p.ac, ac2u = p.ac * p.ac, uz = q[0], btuz = BT_ * uz;
    double r1 = r[0], r2 = r[1], r3 = r[2], r4 = r[3], r5 = r[4];
    double t1 = btuz * acinv * (r4 + r5), t2 = r3 + t1, t3 = btuz * (r4 - r5);
    r[0] = t2;
    r[1] = -uz * r2 + p.v[0] * t2;
    r[2] = uz * r1 + p.v[1] * t2;
    r[3] = p.v[2] * t2 + t3;
    r[4] = uz * (-p.v[0] * r2 + p.v[1] * r1) + p.qs * t2 + 2.5 * ac2u * t1 + p.v[2] * t3;
}

/* u = u + r, the step's end (NPB's add). */
static void add(double *u, double *r)
{
    for (int m = 0; m < 5; m++)
        u[m] = u[m] + r[m];
}

/* f(u, rsd) at every interior point. */
static void each_point(lu_ctx *g, void (*f)(double *u, double *r))
{
    for (int k = 2; k <= g->nz - 1; k++)
        for (int j = g->jst; j <= g->jend; j++)
            for (int i = g->ist; i <= g->iend; i++)
                f(lu_at(g, g->u, i, j, k), lu_at(g, g->rsd, i, j, k));
}

int sp_setup(sp_ctx *sp, lu_ctx *g)
{
    static const int PHASE[3] = {SP_PH_XSOLVE, SP_PH_YSOLVE, SP_PH_ZSOLVE};
    memset(sp, 0, sizeof *sp);
    sp->g = g;
    int longest = g->nz + 2;   /* nz = nz0 >= the local nx, ny */
    sp->de = calloc((size_t)(g->nz + 2) * g->sz / 5 * 6, sizeof(double));
    sp->co = malloc((size_t)longest * sizeof *sp->co);
    sp->rr = malloc((size_t)longest * sizeof *sp->rr);
    sp->lv = malloc((size_t)longest * sizeof *sp->lv);
    int pipe = adi_pipe_init(&sp->pipe, g, sp, 22, 10, forward, backward, PHASE);
    return sp->de && sp->co && sp->rr && sp->lv && !pipe ? 0 : -1;
}

void sp_free(sp_ctx *sp)
{
    free(sp->de);
    free(sp->co);
    free(sp->rr);
    free(sp->lv);
    adi_pipe_free(&sp->pipe);
}

void sp_step(sp_ctx *sp)
{
    static void (*const after[3])(double *, double *) = {ninvr, pinvr, tzetar};
    lu_ctx *g = sp->g;
    lu_rhs(g);
    lu_phase(g, LU_PH_RHS);
    for (int k = 2; k <= g->nz - 1; k++)   /* SP's rhs is dt times LU's */
        for (int j = g->jst; j <= g->jend; j++)
            for (int i = g->ist; i <= g->iend; i++) {
                double *r = lu_at(g, g->rsd, i, j, k);
                for (int m = 0; m < 5; m++)
                    r[m] *= g->dt;
            }
    each_point(g, txinvr);
    for (int d = 0; d < 3; d++) {
        adi_solve(&sp->pipe, d);
        each_point(g, after[d]);
    }
    lu_phase(g, SP_PH_ADD);
    each_point(g, add);
}
