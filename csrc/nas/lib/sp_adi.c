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

enum { L = ADI_LANES };

/* The batch's velocity along d, rhon (NPB's: the largest diffusion of the variables there)
 * and speed at its points and the ends' neighbours: v[p + 1][.][l] for p = -1 .. len, from the
 * primitives (x0 the first point's index, ps the points' step along the line, pl the lines'). */
static void line_state(const sp_ctx *sp, size_t x0, ptrdiff_t ps, size_t pl, int d, int len,
                       int nl, double (*v)[3][L])
{
    const adi_prim *pr = &sp->prim;
    double dd = sp->g->dir[d].d[0];   /* the five are equal (0.75, 1) */
    for (int p = -1; p <= len; p++)
        for (int l = 0; l < L; l++) {
            size_t x = x0 + (size_t)(p * ps) + adi_lane(l, nl) * pl;
            double ru1 = C3C4 * pr->rho_i[x];
            double a = dd + 4.0 / 3.0 * ru1, b = dd + C1C5 * ru1, c = dd + ru1;
            a = a > b ? a : b;   /* not fmax: a library call, not vectorised */
            a = a > c ? a : c;
            v[p + 1][0][l] = pr->vel[d][x];
            v[p + 1][1][l] = a > dd ? a : dd;
            v[p + 1][2][l] = pr->speed[x];
        }
}

/* The three pentadiagonal rows (a, b, c, d, e) of a point along d, global position gp of n0,
 * from the line state of it and its neighbours (v[0] before, v[1] it, v[2] after): out[q] for
 * the systems of u, u + c and u - c (NPB's lhs, lhsp, lhsm). */
static void rows(const sp_ctx *sp, const double (*restrict v)[3][L], int d, int gp, int n0,
                 double (*restrict out)[5][L])
{
    const lu_dir *dc = &sp->g->dir[d];
    double dt = sp->g->dt, t1 = dt * dc->t1, t2 = dt * dc->t2, com = dt * sp->g->dssp;
    /* the implicit dissipation: dt dssp times the fourth difference, one-sided at the ends */
    static const double W[5][5] = {{1, -4, 6, -4, 1}, {0, 0, 5, -4, 1}, {0, -4, 6, -4, 1},
                                   {1, -4, 6, -4, 0}, {1, -4, 5, 0, 0}};
    const double *w = W[gp == 2 ? 1 : gp == 3 ? 2 : gp == n0 - 2 ? 3 : gp == n0 - 1 ? 4 : 0];
    for (int l = 0; l < L; l++) {
        double b = -t2 * v[0][0][l] - t1 * v[0][1][l] + com * w[1];
        double c = 1.0 + 2.0 * t1 * v[1][1][l] + com * w[2];
        double e = t2 * v[2][0][l] - t1 * v[2][1][l] + com * w[3];
        double sm = t2 * v[0][2][l], sq = t2 * v[2][2][l];
        out[0][0][l] = out[1][0][l] = out[2][0][l] = com * w[0];
        out[0][2][l] = out[1][2][l] = out[2][2][l] = c;
        out[0][4][l] = out[1][4][l] = out[2][4][l] = com * w[4];
        out[0][1][l] = b;
        out[0][3][l] = e;
        out[1][1][l] = b - sm;
        out[1][3][l] = e + sq;
        out[2][1][l] = b + sm;
        out[2][3][l] = e - sq;
    }
}

/* The components each system solves for: u for 0..2, u + c for 3, u - c for 4. */
static const int FIRST[3] = {0, 3, 4}, COUNT[3] = {3, 1, 1};

/* Row t of system q normalised (t >= 2), then subtracted from the next two rows, in NPB's
 * order, every lane at once (the lanes innermost, for the vectoriser); rows 0 and 1 are the
 * two normalised rows before the line (zero at the global start). */
static inline void eliminate_row(double (*restrict co)[3][5][L], double (*restrict rr)[5][L],
                                 int q, int t, int n)
{
    int m0 = FIRST[q], m1 = FIRST[q] + COUNT[q];
    double (*row)[L] = co[t][q], f[L];
    if (t >= 2) {
        double *restrict d = row[3], *restrict e = row[4];
        for (int l = 0; l < L; l++)
            f[l] = 1.0 / row[2][l];
        for (int l = 0; l < L; l++) {
            d[l] *= f[l];
            e[l] *= f[l];
        }
        for (int m = m0; m < m1; m++) {
            double *restrict y = rr[t][m];
            for (int l = 0; l < L; l++)
                y[l] *= f[l];
        }
    }
    for (int a = 1; a <= 2; a++) {   /* the rows a after: their entry below row t's diagonal */
        if (t + a >= n || (a == 1 && t < 1))
            continue;
        int b = 2 - a;   /* the column of that entry */
        const double *restrict f = co[t + a][q][b], *restrict d = row[3], *restrict e = row[4];
        double *restrict n1 = co[t + a][q][b + 1], *restrict n2 = co[t + a][q][b + 2];
        for (int l = 0; l < L; l++) {
            n1[l] -= f[l] * d[l];
            n2[l] -= f[l] * e[l];
        }
        for (int m = m0; m < m1; m++) {
            const double *restrict y = rr[t][m];
            double *restrict z = rr[t + a][m];
            for (int l = 0; l < L; l++)
                z[l] -= f[l] * y[l];
        }
    }
}

/* The three systems' eliminations over rows 0 .. n-1, row by row. */
static void eliminate(double (*co)[3][5][L], double (*rr)[5][L], int n)
{
    for (int t = 0; t < n; t++)
        for (int q = 0; q < 3; q++)
            eliminate_row(co, rr, q, t, n);
}

/* Pack (out) or unpack two normalised rows of each of nl lanes: per lane and row the (d, e)
 * of each system, then the 5 right-hand sides: 22 doubles a lane. */
static void two_rows(double (*co)[3][5][L], double (*rr)[5][L], double *msg, int nl, int out)
{
    for (int l = 0; l < L; l++)
        for (int t = 0; t < 2; t++)
            for (int v = 0; v < 11; v++) {
                double *x = v < 6 ? &co[t][v / 2][3 + v % 2][l] : &rr[t][v - 6][l];
                double *m = msg ? msg + 22 * adi_lane(l, nl) + 11 * t + v : NULL;
                if (out && l < nl)
                    *m = *x;
                else if (!out)
                    *x = m ? *m : 0.0;
            }
}

/* The normalised (d, e) of the three systems of a batch's points, kept from its forward
 * elimination for its back substitution: [point][system][d or e][lane], batches in the order
 * of (lib/adi_pipe.c) their planes, then their first line. */
static double (*batch_de(sp_ctx *sp, int d, int i, int j, int k, int len))[3][2][L]
{
    size_t b = (size_t)adi_batch(sp->g, d, i, j, k);
    return (double (*)[3][2][L])(sp->de + b * (size_t)len * 6 * L);
}

/* The forward elimination of nl lines (adi_line_fn): in, the two rows before each (22
 * doubles; NULL at the global start, where they are zero); out, their last two rows. */
static void forward(void *ctx, int d, int i, int j, int k, size_t s, int len, int nl, size_t ls,
                    const double *in, double *out)
{
    sp_ctx *sp = ctx;
    lu_ctx *g = sp->g;
    int gp = d == 0 ? g->ipt + i : d == 1 ? g->jpt + j : k;
    int n0 = d == 0 ? g->nx0 : d == 1 ? g->ny0 : g->nz0;
    double (*co)[3][5][L] = sp->co, (*rr)[5][L] = sp->rr;
    double *r = lu_at(g, g->rsd, i, j, k);
    size_t x0 = adi_pt(g, i, j, k), ps = s / 5, pl = ls / 5;
    two_rows(co, rr, (double *)in, nl, 0);
    line_state(sp, x0, (ptrdiff_t)ps, pl, d, len, nl, sp->lv);
    for (int p = 0; p < len; p++)
        rows(sp, (const double (*)[3][L])sp->lv + p, d, gp + p, n0, co[p + 2]);
    adi_lanes_move(r, s, ls, len, nl, rr + 2, 1);
    eliminate(co, rr, len + 2);
    adi_lanes_move(r, s, ls, len, nl, rr + 2, 0);
    double (*de)[3][2][L] = batch_de(sp, d, i, j, k, len);
    for (int p = 0; p < len; p++)
        for (int q = 0; q < 3; q++)
            memcpy(de[p][q], &co[p + 2][q][3], sizeof de[p][q]);
    two_rows(co + len, rr + len, out, nl, 1);
}

/* The lanes as one vector (GCC's vector extension: the vectoriser does not take this loop
 * itself, its loads through the table of systems defeat its analysis). */
typedef double lanes __attribute__((vector_size(L * sizeof(double))));

static inline lanes load(const double *p)
{
    lanes v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* x0 -= d x1 + e x2, every lane. */
static inline void back_step(const double (*de)[L], const double *x1, const double *x2,
                             double *x0)
{
    lanes r = load(x0) - (load(de[0]) * load(x1) + load(de[1]) * load(x2));
    memcpy(x0, &r, sizeof r);
}

/* The back substitution of nl lines (adi_line_fn), every lane at once: in, the solutions of
 * the two points after each line (10 doubles; NULL at the global end, where they are zero);
 * out, those of its first two points. */
static void backward(void *ctx, int d, int i, int j, int k, size_t s, int len, int nl, size_t ls,
                     const double *in, double *out)
{
    static const int SYSTEM[5] = {0, 0, 0, 1, 2};
    sp_ctx *sp = ctx;
    double *r = lu_at(sp->g, sp->g->rsd, i, j, k), (*x)[5][L] = sp->rr;
    const double (*de)[3][2][L] = (const double (*)[3][2][L])batch_de(sp, d, i, j, k, len);
    adi_lanes_move(r, s, ls, len, nl, x, 1);
    for (int l = 0; l < L; l++)   /* the two points after the line: x[len], x[len + 1] */
        for (int m = 0; m < 10; m++)
            x[len + m / 5][m % 5][l] = in ? in[10 * adi_lane(l, nl) + m] : 0.0;
    for (int p = len - 1; p >= 0; p--)
        for (int m = 0; m < 5; m++)
            back_step(de[p][SYSTEM[m]], x[p + 1][m], x[p + 2][m], x[p][m]);
    adi_lanes_move(r, s, ls, len, nl, x, 0);
    for (int l = 0; l < nl; l++)
        for (int m = 0; m < 10; m++)
            out[10 * l + m] = x[m / 5][m % 5][l];
}

/* The primitives at point x of u (computed with the right-hand side): 1/rho, the velocities,
 * qs, the speed of sound. */
typedef struct {
    double ri, v[3], qs, ac;
} prim;

static inline prim primitive(const adi_prim *pr, size_t x)
{
    return (prim){pr->rho_i[x], {pr->vel[0][x], pr->vel[1][x], pr->vel[2][x]}, pr->qs[x],
                  pr->speed[x]};
}

/* r = T^-1 r before the x solve (NPB's txinvr). */
static void txinvr(const adi_prim *pr, size_t x, const double *q, double *r)
{
    (void)q;
    prim p = primitive(pr, x);
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
static void ninvr(const adi_prim *pr, size_t x, const double *q, double *r)
{
    (void)pr, (void)x, (void)q;
    double t1 = BT_ * r[2], t2 = 0.5 * (r[3] + r[4]), r0 = r[0], r3 = r[3], r4 = r[4];
    r[0] = -r[1];
    r[1] = r0;
    r[2] = BT_ * (r3 - r4);
    r[3] = -t1 + t2;
    r[4] = t1 + t2;
}

/* Between the y and z solves (NPB's pinvr). */
static void pinvr(const adi_prim *pr, size_t x, const double *q, double *r)
{
    (void)pr, (void)x, (void)q;
    double t1 = BT_ * r[0], t2 = 0.5 * (r[3] + r[4]), r1 = r[1], r3 = r[3], r4 = r[4];
    r[0] = BT_ * (r3 - r4);
    r[1] = -r[2];
    r[2] = r1;
    r[3] = -t1 + t2;
    r[4] = t1 + t2;
}

/* After the z solve, back to the conserved variables (NPB's tzetar). */
static void tzetar(const adi_prim *pr, size_t x, const double *q, double *r)
{
    prim p = primitive(pr, x);
    double acinv = 1.0 / p.ac, ac2u = p.ac * p.ac, uz = q[0], btuz = BT_ * uz;
    double r1 = r[0], r2 = r[1], r3 = r[2], r4 = r[3], r5 = r[4];
    double t1 = btuz * acinv * (r4 + r5), t2 = r3 + t1, t3 = btuz * (r4 - r5);
    r[0] = t2;
    r[1] = -uz * r2 + p.v[0] * t2;
    r[2] = uz * r1 + p.v[1] * t2;
    r[3] = p.v[2] * t2 + t3;
    r[4] = uz * (-p.v[0] * r2 + p.v[1] * r1) + p.qs * t2 + 2.5 * ac2u * t1 + p.v[2] * t3;
}

typedef void point_fn(const adi_prim *pr, size_t x, const double *q, double *r);

/* f at every interior point: its primitives' index, u and rsd there. */
static void each_point(sp_ctx *sp, point_fn *f)
{
    lu_ctx *g = sp->g;
    for (int k = 2; k <= g->nz - 1; k++)
        for (int j = g->jst; j <= g->jend; j++) {
            size_t x = adi_pt(g, g->ist, j, k);
            for (int i = g->ist; i <= g->iend; i++, x++)
                f(&sp->prim, x, g->u + 5 * x, g->rsd + 5 * x);
        }
}

int sp_setup(sp_ctx *sp, lu_ctx *g)
{
    static const int PHASE[3] = {SP_PH_XSOLVE, SP_PH_YSOLVE, SP_PH_ZSOLVE};
    memset(sp, 0, sizeof *sp);
    sp->g = g;
    int longest = g->nz + 2;   /* nz = nz0 >= the local nx, ny */
    sp->de = aligned_alloc(64, adi_batch_points(g) * 6 * L * sizeof(double));
    sp->co = aligned_alloc(64, (size_t)longest * sizeof *sp->co);
    sp->rr = aligned_alloc(64, (size_t)longest * sizeof *sp->rr);
    sp->lv = aligned_alloc(64, (size_t)longest * sizeof *sp->lv);
    int pipe = adi_pipe_init(&sp->pipe, g, sp, 22, 10, forward, backward, PHASE);
    int prim = adi_prim_init(&sp->prim, g);
    return sp->de && sp->co && sp->rr && sp->lv && !pipe && !prim ? 0 : -1;
}

void sp_free(sp_ctx *sp)
{
    free(sp->de);
    free(sp->co);
    free(sp->rr);
    free(sp->lv);
    adi_pipe_free(&sp->pipe);
    adi_prim_free(&sp->prim);
}

void sp_step(sp_ctx *sp)
{
    static point_fn *const after[3] = {ninvr, pinvr, tzetar};
    lu_ctx *g = sp->g;
    adi_rhs(g, &sp->prim, 1, g->dt);
    each_point(sp, txinvr);
    for (int d = 0; d < 3; d++) {
        adi_solve(&sp->pipe, d);
        each_point(sp, after[d]);
    }
    lu_phase(g, SP_PH_ADD);
    for (int k = 2; k <= g->nz - 1; k++)   /* u = u + du (NPB's add) */
        for (int j = g->jst; j <= g->jend; j++) {
            double *u = lu_at(g, g->u, g->ist, j, k);
            const double *r = lu_at(g, g->rsd, g->ist, j, k);
            for (int x = 0; x < 5 * (g->iend - g->ist + 1); x++)
                u[x] += r[x];
        }
}
