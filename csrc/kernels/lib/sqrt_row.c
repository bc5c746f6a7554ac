/* sqrt_row.c - vector square roots over a row (sqrt_row.h). */
#include "sqrt_row.h"

#include <math.h>
#ifdef __AVX__
#include <immintrin.h>
#endif

void hpc_sqrt_row(int len, double *restrict x)
{
    int i = 0;
#ifdef __AVX__
    for (; i + 4 <= len; i += 4)
        _mm256_storeu_pd(x + i, _mm256_sqrt_pd(_mm256_loadu_pd(x + i)));
#endif
    for (; i < len; i++)
        x[i] = sqrt(x[i]);
}
