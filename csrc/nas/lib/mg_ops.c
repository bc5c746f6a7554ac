/* mg_ops.c - NPB MG's stencil operators (mg_ops.h). Each follows mg.f's evaluation order
 * (partial sums along a line first), so the rounding is close to NPB's; the verification
 * tolerance (1e-8 relative) does not need it bit for bit. */
#include "mg_ops.h"

#include <math.h>

#define AT(L, x, i, j, k) ((x)[(size_t)(i) + (L)->sy * (size_t)(j) + (L)->sz * (size_t)(k)])

/* Along line (j, k): s1 = the four face neighbours across y and z, s2 = the four edge
 * neighbours in the y-z plane, for every x including the ghosts (NPB's u1/u2, r1/r2). */
static void line_sums(const mg_level *L, const double *x, int j, int k, double *s1, double *s2)
{
    for (int i = 0; i <= L->n + 1; i++) {
        s1[i] = AT(L, x, i, j - 1, k) + AT(L, x, i, j + 1, k) + AT(L, x, i, j, k - 1) +
                AT(L, x, i, j, k + 1);
        s2[i] = AT(L, x, i, j - 1, k - 1) + AT(L, x, i, j + 1, k - 1) +
                AT(L, x, i, j - 1, k + 1) + AT(L, x, i, j + 1, k + 1);
    }
}

void mg_resid(const mg_level *L, const double *u, const double *v, double *r, const double *a)
{
    double u1[MG_NMAX + 2], u2[MG_NMAX + 2];
    for (int k = 1; k <= L->nz; k++)
        for (int j = 1; j <= L->n; j++) {
            line_sums(L, u, j, k, u1, u2);
            for (int i = 1; i <= L->n; i++)
                AT(L, r, i, j, k) = AT(L, v, i, j, k) - a[0] * AT(L, u, i, j, k) -
                                    a[2] * (u2[i] + u1[i - 1] + u1[i + 1]) -
                                    a[3] * (u2[i - 1] + u2[i + 1]);
        }
}

void mg_psinv(const mg_level *L, const double *r, double *u, const double *c)
{
    double r1[MG_NMAX + 2], r2[MG_NMAX + 2];
    for (int k = 1; k <= L->nz; k++)
        for (int j = 1; j <= L->n; j++) {
            line_sums(L, r, j, k, r1, r2);
            for (int i = 1; i <= L->n; i++)
                AT(L, u, i, j, k) += c[0] * AT(L, r, i, j, k) +
                                     c[1] * (AT(L, r, i - 1, j, k) + AT(L, r, i + 1, j, k) +
                                             r1[i]) +
                                     c[2] * (r2[i] + r1[i - 1] + r1[i + 1]);
        }
}

void mg_rprj3(const mg_level *F, const double *r, const mg_level *C, double *s)
{
    double x1[2 * MG_NMAX + 2], y1[2 * MG_NMAX + 2];
    for (int ck = 1; ck <= C->nz; ck++)
        for (int cj = 1; cj <= C->n; cj++) {
            int k = 2 * ck, j = 2 * cj;
            /* the odd fine columns around the coarse points, shared by two neighbours */
            for (int i = 1; i <= F->n + 1; i += 2) {
                x1[i] = AT(F, r, i, j - 1, k) + AT(F, r, i, j + 1, k) + AT(F, r, i, j, k - 1) +
                        AT(F, r, i, j, k + 1);
                y1[i] = AT(F, r, i, j - 1, k - 1) + AT(F, r, i, j - 1, k + 1) +
                        AT(F, r, i, j + 1, k - 1) + AT(F, r, i, j + 1, k + 1);
            }
            for (int ci = 1; ci <= C->n; ci++) {
                int i = 2 * ci;
                double y2 = AT(F, r, i, j - 1, k - 1) + AT(F, r, i, j - 1, k + 1) +
                            AT(F, r, i, j + 1, k - 1) + AT(F, r, i, j + 1, k + 1);
                double x2 = AT(F, r, i, j - 1, k) + AT(F, r, i, j + 1, k) +
                            AT(F, r, i, j, k - 1) + AT(F, r, i, j, k + 1);
                AT(C, s, ci, cj, ck) =
                    0.5 * AT(F, r, i, j, k) +
                    0.25 * (AT(F, r, i - 1, j, k) + AT(F, r, i + 1, j, k) + x2) +
                    0.125 * (x1[i - 1] + x1[i + 1] + y2) + 0.0625 * (y1[i - 1] + y1[i + 1]);
            }
        }
}

void mg_interp(const mg_level *C, const double *z, const mg_level *F, double *u)
{
    double z1[MG_NMAX + 2], z2[MG_NMAX + 2], z3[MG_NMAX + 2];
    for (int ck = 0; ck <= C->nz; ck++)
        for (int cj = 0; cj <= C->n; cj++) {
            for (int ci = 0; ci <= C->n + 1; ci++) {
                z1[ci] = AT(C, z, ci, cj + 1, ck) + AT(C, z, ci, cj, ck);
                z2[ci] = AT(C, z, ci, cj, ck + 1) + AT(C, z, ci, cj, ck);
                z3[ci] = AT(C, z, ci, cj + 1, ck + 1) + AT(C, z, ci, cj, ck + 1) + z1[ci];
            }
            int j = 2 * cj, k = 2 * ck;
            for (int ci = 0; ci <= C->n; ci++) {
                int i = 2 * ci;
                AT(F, u, i, j, k) += AT(C, z, ci, cj, ck);
                AT(F, u, i + 1, j, k) += 0.5 * (AT(C, z, ci + 1, cj, ck) + AT(C, z, ci, cj, ck));
                AT(F, u, i, j + 1, k) += 0.5 * z1[ci];
                AT(F, u, i + 1, j + 1, k) += 0.25 * (z1[ci] + z1[ci + 1]);
                AT(F, u, i, j, k + 1) += 0.5 * z2[ci];
                AT(F, u, i + 1, j, k + 1) += 0.25 * (z2[ci] + z2[ci + 1]);
                AT(F, u, i, j + 1, k + 1) += 0.25 * z3[ci];
                AT(F, u, i + 1, j + 1, k + 1) += 0.125 * (z3[ci] + z3[ci + 1]);
            }
        }
}

void mg_norm_local(const mg_level *L, const double *r, double *sum, double *max)
{
    double s = 0, m = 0;
    for (int k = 1; k <= L->nz; k++)
        for (int j = 1; j <= L->n; j++)
            for (int i = 1; i <= L->n; i++) {
                double x = AT(L, r, i, j, k);
                s += x * x;
                /* a NaN must not hide behind the comparison: it poisons the sum anyway */
                m = fabs(x) > m ? fabs(x) : m;
            }
    *sum = s;
    *max = m;
}
