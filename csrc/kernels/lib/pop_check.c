/* pop_check.c - the barotropic proxy's checks (pop_check.h). */
#include "pop_check.h"
#include "harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double max_abs(const double *x, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs(x[k]));
    return m;
}

static double max_rel_diff(const double *x, const double *ref, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m = fmax(m, fabs(x[k] - ref[k]));
    double s = max_abs(ref, n);
    return s > 0 ? m / s : m;
}

void pop_ref_init(pop_ref *rf, int nx, int ny, int land, double dt, int direct_max)
{
    memset(rf, 0, sizeof *rf);
    if (pop_grid_init(&rf->g, nx, ny, land, dt))
        hpc_fail("barotropic: no memory for the %dx%d grid", nx, ny);
    if (hpc_rank != 0)
        return;
    size_t n = (size_t)nx * ny;
    char err[256];
    /* O(n) but some 100 flops a point: the grids of the tests and benchmarks, not the huge ones. */
    if (n <= ((size_t)1 << 22) && pop_check_symmetry(&rf->g, err, sizeof err))
        hpc_fail("barotropic: the %dx%d operator is wrong: %s", nx, ny, err);
    if (pop_block_init(&rf->gb, &rf->g, 0, 0, nx, ny))
        hpc_fail("barotropic: no memory for the global pop_ref of %dx%d", nx, ny);
    rf->work = pop_field(&rf->gb);
    rf->work2 = pop_field(&rf->gb);
    rf->b = malloc(n * sizeof(double));
    rf->xtrue = malloc(n * sizeof(double));
    if (!rf->work || !rf->work2 || !rf->b || !rf->xtrue)
        hpc_fail("barotropic: no memory for the global pop_ref of %dx%d", nx, ny);
    /* b = A x_true with the same operator code as the ranks (their b is the same bits). */
    pop_fill_xtrue(&rf->gb, &rf->g, rf->work);
    pop_apply_dot(&rf->gb, rf->work, rf->work2);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            size_t c = (size_t)(j + 1) * rf->gb.ld + i + 1;
            rf->b[(size_t)j * nx + i] = rf->work2[c];
            rf->xtrue[(size_t)j * nx + i] = rf->work[c];
        }
    if (rf->g.ocean <= direct_max) {
        rf->direct = malloc(n * sizeof(double));
        if (!rf->direct)
            hpc_fail("barotropic: no memory for the direct solve");
        /* The band matrix comes from pop_coef_at, not from the ranks' arrays:
         * an inconsistent operator shows up as a difference. */
        int rc = pop_direct_solve(&rf->g, rf->b, rf->direct, 2e10, err, sizeof err);
        if (rc < 0)
            hpc_fail("barotropic: %dx%d: %s", nx, ny, err);
        if (rc > 0) {
            hpc_warn("%dx%d: %s; not checked against a direct solve", nx, ny, err);
            free(rf->direct);
            rf->direct = NULL;
        }
    }
}

void pop_ref_free(pop_ref *rf)
{
    if (hpc_rank == 0) {
        pop_block_free(&rf->gb);
        free(rf->work);
        free(rf->work2);
        free(rf->b);
        free(rf->xtrue);
        free(rf->direct);
        free(rf->first);
    }
    pop_grid_free(&rf->g);
}

/* Relative 2-norm residual ||b - A x|| / ||b|| of a global solution, on rank 0. */
static double true_residual(pop_ref *rf, const double *x)
{
    int nx = rf->g.nx, ny = rf->g.ny, ld = rf->gb.ld;
    memset(rf->work, 0, rf->gb.n * sizeof(double));
    for (int j = 0; j < ny; j++)
        memcpy(rf->work + (size_t)(j + 1) * ld + 1, x + (size_t)j * nx, (size_t)nx * sizeof(double));
    pop_wrap_x(&rf->gb, rf->work);
    pop_apply_dot(&rf->gb, rf->work, rf->work2);
    double rr = 0, bb = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double b = rf->b[(size_t)j * nx + i], r = b - rf->work2[(size_t)(j + 1) * ld + i + 1];
            rr += r * r;
            bb += b * b;
        }
    return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

/* Gather every rank's interior of x (row length ld) into the global array out on rank 0. */
static void gather_global(const pop_decomp *d, const double *x, int ld, double *out)
{
    int n = d->bx * d->by;
    double *mine = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    for (int j = 0; j < d->by; j++)
        memcpy(mine + (size_t)j * d->bx, x + (size_t)(j + 1) * ld + 1, (size_t)d->bx * sizeof(double));
    int *cnt = NULL, *dsp = NULL;
    double *all = NULL;
    if (d->rank == 0) {
        cnt = malloc((size_t)d->nranks * sizeof(int));
        dsp = malloc((size_t)d->nranks * sizeof(int));
        int off = 0;
        for (int r = 0; r < d->nranks; r++) {
            pop_decomp o;
            pop_decomp_init(&o, d->nx, d->ny, d->P, d->Q, d->colmajor, r, d->nranks);
            cnt[r] = o.bx * o.by;
            dsp[r] = off;
            off += cnt[r];
        }
        all = malloc((size_t)off * sizeof(double));
    }
    MPI_Gatherv(mine, n, MPI_DOUBLE, all, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (d->rank == 0) {
        for (int r = 0; r < d->nranks; r++) {
            pop_decomp o;
            pop_decomp_init(&o, d->nx, d->ny, d->P, d->Q, d->colmajor, r, d->nranks);
            for (int j = 0; j < o.by; j++)
                memcpy(out + (size_t)(o.j0 + j) * d->nx + o.i0, all + dsp[r] + (size_t)j * o.bx,
                       (size_t)o.bx * sizeof(double));
        }
    }
    free(mine);
    free(cnt);
    free(dsp);
    free(all);
}


/* Checks of the first solve of a configuration (collective: the gather). */
pop_check_result pop_check_solution(pop_ref *rf, const char *what, const pop_decomp *d,
                            const double *x, const double *rhs, int ld, double bound, double tol)
{
    pop_check_result cr = {0, NAN, 0, 0};
    size_t n = (size_t)rf->g.nx * rf->g.ny;
    double *xg = hpc_rank == 0 ? malloc(n * sizeof(double)) : NULL;
    double *bg = hpc_rank == 0 ? malloc(n * sizeof(double)) : NULL;
    if (hpc_rank == 0 && (!xg || !bg))
        hpc_fail("barotropic: no memory to gather the solution");
    gather_global(d, x, ld, xg);
    gather_global(d, rhs, ld, bg);
    if (hpc_rank != 0)
        return cr;
    /* The gathered right-hand side is the system rank 0 checks against (the same formula per
     * point, so the same bits up to the compiler's contractions). */
    hpc_check_finite(bg, n, "barotropic: %s: the ranks' right-hand side", what);
    double db = max_rel_diff(bg, rf->b, n);
    free(bg);
    hpc_check_bound(db, 1e-13, "barotropic: %s: the ranks' right-hand side differs from the "
                    "global one", what);
    if (hpc_inject == HPC_INJECT_CORRUPT)  /* damage one ocean point: the checks must fail */
        for (size_t k = 0; k < n; k++)
            if (rf->g.mask[k]) {
                xg[k] += 1.0;
                break;
            }
    /* max_rel_diff's fmax drops NaNs: a blown-up solution must fail here first. */
    hpc_check_finite(xg, n, "barotropic: %s: the gathered solution", what);
    cr.vs_true = max_rel_diff(xg, rf->xtrue, n);
    if (rf->direct)
        cr.vs_direct = max_rel_diff(xg, rf->direct, n);
    if (rf->first)
        cr.vs_first = max_rel_diff(xg, rf->first, n);
    cr.residual = true_residual(rf, xg);
    hpc_check_bound(cr.vs_true, bound, "barotropic: %s: the solution differs from x_true "
                    "(relative, max norm)", what);
    if (rf->direct)
        hpc_check_bound(cr.vs_direct, bound, "barotropic: %s: the solution differs from the "
                        "direct solve", what);
    hpc_check_bound(cr.vs_first, bound, "barotropic: %s: the solution differs from the first "
                    "configuration's", what);
    /* The recursive residual met tol; the true one may drift a little from it (100 tol). */
    hpc_check_bound(cr.residual, 100 * tol, "barotropic: %s: the true relative residual", what);
    if (!rf->first)
        rf->first = xg;  /* the first configuration of this grid: the others compare with it */
    else
        free(xg);
    return cr;
}
