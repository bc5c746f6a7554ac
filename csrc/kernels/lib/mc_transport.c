/* mc_transport.c - geometry, histories and tallies (mc_transport.h). */
#include "mc_transport.h"
#include "mc_rng.h"

#include <math.h>
#include <string.h>

void mc_tally_zero(mc_tally *t)
{
    memset(t, 0, sizeof *t);
}

void mc_tally_add(mc_tally *into, const mc_tally *t)
{
    into->histories += t->histories;
    into->transmitted += t->transmitted;
    into->reflected += t->reflected;
    into->collisions += t->collisions;
    for (int r = 0; r < MC_MAX_REGIONS; r++) {
        into->absorbed[r] += t->absorbed[r];
        into->track[r] += t->track[r];
        into->track2[r] += t->track2[r];
    }
}

int mc_tally_equal(const mc_tally *a, const mc_tally *b)
{
    return memcmp(a, b, sizeof *a) == 0;  /* no padding: int64 and u128 members only */
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t k = 0; k < n; k++)
        h = (h ^ b[k]) * 0x100000001b3ull;
    return h;
}

uint64_t mc_tally_digest(const mc_tally *t, int nreg)
{
    uint64_t h = fnv(0xcbf29ce484222325ull, &t->histories, 4 * sizeof(int64_t));
    h = fnv(h, t->absorbed, (size_t)nreg * sizeof(int64_t));
    h = fnv(h, t->track, (size_t)nreg * sizeof(mc_u128));
    return fnv(h, t->track2, (size_t)nreg * sizeof(mc_u128));
}

/* Collision or absorption at the end of a flight in region r: returns 1 if absorbed. */
static int collide(const mc_problem *p, mc_stream *s, mc_tally *t, int r)
{
    t->collisions++;
    if (mc_uniform(s) < p->scatter[r])
        return 0;
    t->absorbed[r]++;
    return 1;
}

/* Distance to the next collision in region r (infinite in a void). */
static double flight(const mc_problem *p, mc_stream *s, int r)
{
    double sig = p->sigma_t[r];
    return sig > 0 ? -log(mc_uniform(s)) / sig : INFINITY;
}

static void slab_history(const mc_problem *p, mc_stream *s, mc_tally *t, double *trk)
{
    double x = 0, mu = p->source == MC_NORMAL ? 1.0 : mc_uniform(s);
    int r = 0;
    for (;;) {
        double dc = flight(p, s, r);
        /* mu is never 0: 2u - 1 with u = (k + 1/2) 2^-53 */
        double db = fmax((mu > 0 ? p->bound[r + 1] - x : p->bound[r] - x) / mu, 0.0);
        if (dc < db) {
            x += mu * dc;
            trk[r] += dc;
            if (collide(p, s, t, r))
                return;
            mu = 2 * mc_uniform(s) - 1;
            continue;
        }
        trk[r] += db;
        /* on the face exactly: no drift of x across many crossings */
        if (mu > 0) {
            x = p->bound[++r];
            if (r == p->nreg) {
                t->transmitted++;
                return;
            }
        } else {
            x = p->bound[r--];
            if (r < 0) {
                t->reflected++;
                return;
            }
        }
    }
}

static void isotropic(mc_stream *s, double d[3])
{
    double w = 2 * mc_uniform(s) - 1, phi = 2 * M_PI * mc_uniform(s);
    double st = sqrt(fmax(1 - w * w, 0.0));
    d[0] = st * cos(phi);
    d[1] = st * sin(phi);
    d[2] = w;
}

/* Distance along d from x to the sphere of radius R, or INFINITY; outward:
 * from inside (the far root), else the near root from outside. The roots in
 * the forms without cancellation. */
static double to_sphere(const double x[3], const double d[3], double R, int outward)
{
    double b = x[0] * d[0] + x[1] * d[1] + x[2] * d[2];
    double c = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] - R * R;
    double disc = b * b - c;
    if (outward) {
        double q = sqrt(fmax(disc, 0.0));
        return fmax(b > 0 ? -c / (b + q) : q - b, 0.0);
    }
    if (b >= 0 || disc <= 0)
        return INFINITY;
    return fmax(c / (sqrt(disc) - b), 0.0);
}

static void sphere_history(const mc_problem *p, mc_stream *s, mc_tally *t, double *trk)
{
    double x[3] = {0, 0, 0}, d[3];
    isotropic(s, d);
    int r = 0;
    for (;;) {
        double dc = flight(p, s, r);
        double db = to_sphere(x, d, p->bound[r + 1], 1);
        int step = 1;
        if (r > 0) {
            double din = to_sphere(x, d, p->bound[r], 0);
            if (din < db) {
                db = din;
                step = -1;
            }
        }
        double go = dc < db ? dc : db;
        for (int k = 0; k < 3; k++)
            x[k] += go * d[k];
        trk[r] += go;
        if (dc < db) {
            if (collide(p, s, t, r))
                return;
            isotropic(s, d);
            continue;
        }
        /* onto the crossed sphere exactly: the region index, not the position, decides */
        double R = p->bound[step > 0 ? r + 1 : r], n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int k = 0; k < 3 && n > 0; k++)
            x[k] *= R / n;
        r += step;
        if (r == p->nreg) {
            t->transmitted++;
            return;
        }
    }
}

void mc_track(const mc_problem *p, int64_t first, int64_t count, mc_tally *t)
{
    for (int64_t i = first; i < first + count; i++) {
        mc_stream s;
        mc_stream_init(&s, p->seed, (uint64_t)i);
        double trk[MC_MAX_REGIONS] = {0};
        if (p->shape == MC_SLAB)
            slab_history(p, &s, t, trk);
        else
            sphere_history(p, &s, t, trk);
        for (int r = 0; r < p->nreg; r++) {
            uint64_t q = (uint64_t)llround(ldexp(trk[r], MC_FIX_BITS));
            t->track[r] += q;
            t->track2[r] += (mc_u128)q * q;
        }
    }
    t->histories += count;
}

mc_est mc_fraction(int64_t k, int64_t n)
{
    double m = (double)k / (double)n;
    return (mc_est){m, sqrt(m * (1 - m) / (double)(n - 1))};
}

mc_est mc_track_length(const mc_tally *t, int r)
{
    double n = (double)t->histories;
    double m = ldexp((double)t->track[r], -MC_FIX_BITS) / n;
    double m2 = ldexp((double)t->track2[r], -2 * MC_FIX_BITS) / n;
    return (mc_est){m, sqrt(fmax(m2 - m * m, 0.0) / (n - 1))};
}

int mc_analytic(const mc_problem *p, double *transmission, double *track)
{
    if (p->shape == MC_SLAB && p->source != MC_NORMAL)
        return 0;
    for (int r = 0; r < p->nreg; r++)
        if (p->scatter[r] != 0)
            return 0;
    double reach = 1;  /* probability of reaching region r uncollided */
    for (int r = 0; r < p->nreg; r++) {
        double d = p->bound[r + 1] - p->bound[r], sig = p->sigma_t[r];
        track[r] = sig > 0 ? reach * -expm1(-sig * d) / sig : reach * d;
        reach *= exp(-sig * d);
    }
    *transmission = reach;
    return 1;
}
