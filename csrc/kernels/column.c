/* column.c - column-physics kernel (in the spirit of the CCM radiation code).
 *
 * Method: --ncols independent atmospheric columns of --levels levels (18 by
 * default, as CCM2) are processed in chunks of --nlon columns, the
 * "longitude dimension": arrays are [level][longitude] inside a chunk, so the
 * innermost loops run over longitude and vectorize when nlon is large; the
 * number of columns stays fixed (512), so only the vector length and the
 * loop overheads change with nlon. Per column (L levels, P = L(L-1)/2 level
 * pairs), as csrc/kernels/lib/column_physics.c does it:
 *   per level   path length u = sqrt(q dp/g c1 + c2), Planck-like
 *               B = s (T/T0)^4, transmission exp(-c4 u T/T0), density
 *               rho = p / (R T)                         17 flops (1 sqrt, 1 exp, 1 div)
 *               cumulative path ucum += u tr             2 flops
 *   per pair    absorptivity (1 - exp(-k du)) sqrt(du + e) / (1 + c du),
 *               exchange of (B2 - B1) x absorptivity     14 flops (1 sqrt, 1 exp, 1 div)
 *   per level   heating rate f cp/g / (dp rho)            3 flops (1 div)
 * = 22 L + 14 P flops per column: 2538 for L = 18, of which sqrt 171 (6.7%),
 * exp 171 (6.7%), divide 189 (7.4%). Every +, -, *, /, sqrt and exp counts
 * as one flop (an fma as two). MFlop/s = flops of all columns / time.
 *
 * Verification, outside the timed region: every heating rate is compared
 * with a reference computed column by column in long double (expl, sqrtl)
 * with the level pairs visited in another order; the largest difference
 * relative to the column's largest rate must be finite and below 1e-10. The checksum
 * (sum of all heating rates) and the reference's are reported.
 *
 * The kernel is pure (outputs depend on inputs only), so a sample repeats it
 * enough times to last about a millisecond. Only rank 0 measures.
 */
#include "harness.h"
#include "lib/column_physics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hpc_option options[] = {
    {.name = "nlons", .type = HPC_SIZES, .def = "1,2,4,8,16,32,64,128,256,512",
     .min = 1, .max = 1 << 20, .help = "longitude dimensions (columns per chunk), each <= --ncols"},
    {.name = "ncols", .type = HPC_SIZE, .def = "512", .min = 1, .max = 1 << 24,
     .help = "columns in all (fixed while the longitude dimension varies)"},
    {.name = "levels", .type = HPC_INT, .def = "18", .min = 2, .max = 200,
     .help = "levels per column"},
    {0}};

static const double SAMPLE_SECONDS = 1e-3;
static const double TOLERANCE = 1e-10;

/* Largest |out - ref| over a column relative to the column's largest |ref|, finite and below
 * TOLERANCE (a NaN heating rate is the worst difference, never skipped). */
static void verify(const column_state *s, const double *ref, int nlon_used)
{
    int L = s->nlev;
    for (long c = 0; c < s->ncols; c++) {
        double big = 0.0, diff = 0.0;
        int kworst = 0;
        for (int k = 0; k < L; k++) {
            double r = ref[c * L + k], d = fabs(column_heating(s, c, k) - r);
            big = fmax(big, fabs(r));
            if (!isnan(diff) && !(d <= diff)) {
                diff = d;
                kworst = k;
            }
        }
        hpc_check_bound(big > 0 ? diff / big : diff, TOLERANCE,
                        "column kernel check failed (nlon %d): column %ld level %d: heating "
                        "%.17g, reference %.17g: difference relative to the column's largest "
                        "rate", nlon_used, c, kworst, column_heating(s, c, kworst),
                        ref[c * L + kworst]);
    }
}

/* Repetitions of the kernel per sample, from one trial run. */
static long kernels_per_sample(column_state *s)
{
    double t0 = hpc_now();
    column_run(s);
    double t1 = hpc_now() - t0;
    long inner = t1 > 0 ? (long)ceil(SAMPLE_SECONDS / t1) : 1000;
    return inner < 1 ? 1 : inner;
}

/* The record of one nlon. */
static void emit(const hpc_sampler *sm, int nlon, long ncols, int L, long inner, double sum,
                 double ref_sum)
{
    double flops = column_flops_per_column(L) * (double)ncols;
    double *rate = malloc((size_t)sm->n * sizeof *rate);
    hpc_rates(sm->samples, sm->n, flops * (double)inner, 1e6, rate);
    hpc_stats st;
    hpc_stats_compute(rate, sm->n, &st);
    hpc_json r;
    hpc_result_begin(&r, "mflops", "MFlop/s", "median", "higher");
    hpc_json_int(&r, "nlon", nlon);
    hpc_json_int(&r, "ncols", ncols);
    hpc_json_int(&r, "levels", L);
    hpc_result_stats(&r, &st, sm->converged);
    hpc_json_exact(&r, "flops_per_column", column_flops_per_column(L));
    hpc_json_exact(&r, "sqrt_per_column", column_sqrt_per_column(L));
    hpc_json_exact(&r, "exp_per_column", column_exp_per_column(L));
    hpc_json_exact(&r, "div_per_column", column_div_per_column(L));
    hpc_json_int(&r, "kernels_per_sample", inner);
    hpc_json_exact(&r, "checksum", sum);
    hpc_json_exact(&r, "reference_checksum", ref_sum);
    hpc_json_emit(&r);
    free(rate);
}

/* Measure, check and record one nlon. */
static void measure(int nlon, long ncols, int L, const double *ref, double ref_sum)
{
    column_state s;
    column_alloc(&s, ncols, L, nlon);
    long inner = kernels_per_sample(&s);
    hpc_sampler sm;
    hpc_sampler_init(&sm, &hpc_reps);
    while (hpc_sampler_more(&sm)) {
        double t0 = hpc_now();
        for (long r = 0; r < inner; r++)
            column_run(&s);
        hpc_sampler_add(&sm, hpc_now() - t0);
    }
    if (hpc_inject == HPC_INJECT_CORRUPT)
        column_corrupt(&s, ncols / 2, L / 2);
    verify(&s, ref, nlon);
    double sum = 0.0;
    for (long c = 0; c < ncols; c++)
        for (int k = 0; k < L; k++)
            sum += column_heating(&s, c, k);
    emit(&sm, nlon, ncols, L, inner, sum, ref_sum);
    hpc_sampler_free(&sm);
    column_free(&s);
}

int main(int argc, char **argv)
{
    hpc_init(&argc, &argv, "column", "Column-physics kernel: MFlop/s vs longitude dimension.",
             options, MPI_THREAD_SINGLE);
    const long long *nlons;
    int npoints = hpc_opt_list("nlons", &nlons);
    long ncols = (long)hpc_opt_int("ncols");
    int L = (int)hpc_opt_int("levels");
    for (int p = 0; p < npoints; p++)
        hpc_usage_check(nlons[p] > ncols, "option --nlons: %lld exceeds --ncols %ld", nlons[p],
                        ncols);

    hpc_begin(1, NULL);
    hpc_inject_first_point();
    if (hpc_rank == 0) {
        double *ref = malloc((size_t)ncols * (size_t)L * sizeof *ref);
        if (!ref)
            hpc_fail("cannot allocate the reference (%ld columns)", ncols);
        column_reference(ncols, L, ref);
        double ref_sum = 0.0;
        for (long i = 0; i < ncols * L; i++)
            ref_sum += ref[i];
        for (int p = 0; p < npoints; p++)
            measure((int)nlons[p], ncols, L, ref, ref_sum);
        free(ref);
    }
    hpc_idle_barrier(MPI_COMM_WORLD);
    hpc_finish();
    return 0;
}
