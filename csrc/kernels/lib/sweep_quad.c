/* sweep_quad.c - level-symmetric LQn quadrature (sweep_quad.h).
 *
 * Source: E. E. Lewis and W. F. Miller, Computational Methods of Neutron
 * Transport (Wiley 1984), Table 4-1 (the LQn sets of Carlson's construction):
 *   S2: mu1 = 0.5773503                 w = 1
 *   S4: mu1 = 0.3500212                 w1 = 0.3333333
 *   S6: mu1 = 0.2666355                 w1 = 0.1761263, w2 = 0.1572071
 *   S8: mu1 = 0.2182179                 w1 = 0.1209877, w2 = 0.0907407, w3 = 0.0925926
 * (weights per octant summing to 1). Only mu1 is taken from the table: the
 * other cosines follow from the level-symmetric rule
 *   mu_i^2 = mu1^2 + (i - 1) 2 (1 - 3 mu1^2) / (N - 2),
 * so that mu_i^2 + mu_j^2 + mu_k^2 = 1 exactly for the points i + j + k = N/2 + 2.
 * A point's weight class is its level multiset: S6 (1,1,3) w1, (1,2,2) w2;
 * S8 (1,1,4) w1, (1,2,3) w2, (2,2,2) w3. The table's weights (7 digits) are
 * rescaled to sum exactly to 1/8 per octant, so the total is 1 (not 4 pi):
 * the scalar flux is phi = sum_m w_m psi_m, the angular average of psi.
 */
#include "sweep_quad.h"

#include <math.h>

/* Weight class of the point with levels (a, b, c), a + b + c = N/2 + 2. */
static int weight_class(int sn, int a, int b, int c)
{
    int lo = a < b ? (a < c ? a : c) : (b < c ? b : c);
    int hi = a > b ? (a > c ? a : c) : (b > c ? b : c);
    if (sn == 6)
        return hi == 3 ? 0 : 1;
    if (sn == 8)
        return hi == 4 ? 0 : (lo == 1 ? 1 : 2);
    return 0;
}

static int moments_ok(const sweep_quad *q)
{
    double s0 = 0, s2 = 0, s4 = 0, s2e = 0, s2x = 0;
    for (int m = 0; m < q->nm; m++) {
        s0 += q->w[m];
        s2 += q->w[m] * q->mu[m] * q->mu[m];
        s2e += q->w[m] * q->eta[m] * q->eta[m];
        s2x += q->w[m] * q->xi[m] * q->xi[m];
        s4 += q->w[m] * pow(q->mu[m], 4);
    }
    /* An S2 set cannot integrate mu^4 (1/9 instead of 1/5); S4 and above do to the table's
     * 7 digits. */
    double want4 = q->sn == 2 ? 1.0 / 72 : 1.0 / 40;
    return fabs(s0 - 0.125) < 1e-15 && fabs(s2 - 1.0 / 24) < 1e-6 && fabs(s2e - 1.0 / 24) < 1e-6
           && fabs(s2x - 1.0 / 24) < 1e-6 && fabs(s4 - want4) < 1e-6;
}

int sweep_quad_init(sweep_quad *q, int sn)
{
    static const double MU1[5] = {0, 0.5773503, 0.3500212, 0.2666355, 0.2182179};
    static const double W[5][3] = {{0}, {1.0}, {0.3333333}, {0.1761263, 0.1572071},
                                   {0.1209877, 0.0907407, 0.0925926}};
    if (sn != 2 && sn != 4 && sn != 6 && sn != 8)
        return -1;
    int n = sn / 2, levels = sn / 2;
    double cos_[SWEEP_MAX_ANGLES];
    double d = sn > 2 ? 2 * (1 - 3 * MU1[n] * MU1[n]) / (sn - 2) : 0;
    for (int i = 0; i < levels; i++)
        cos_[i] = sqrt(MU1[n] * MU1[n] + i * d);
    q->sn = sn;
    q->nm = 0;
    double wsum = 0;
    /* Levels a (xi), b (eta), c (mu), 1-based, a + b + c = N/2 + 2. */
    for (int a = 1; a <= levels; a++)
        for (int b = 1; a + b <= levels + 1; b++) {
            int c = levels + 2 - a - b, m = q->nm++;
            q->xi[m] = cos_[a - 1];
            q->eta[m] = cos_[b - 1];
            q->mu[m] = cos_[c - 1];
            q->w[m] = W[n][weight_class(sn, a, b, c)];
            wsum += q->w[m];
        }
    for (int m = 0; m < q->nm; m++)
        q->w[m] *= 0.125 / wsum;
    return moments_ok(q) ? 0 : -2;
}
