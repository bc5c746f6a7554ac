/* bw_kernels.c - bandwidth kernels (see bw_kernels.h for the byte counting). */
#include "bw_kernels.h"

#include "check.h"

#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define HAVE_NT 1
#else
#define HAVE_NT 0
#endif

const bw_mode_info bw_modes[BW_NMODES] = {
    [BW_READ] = {"read", 1, 1, 0, "8 B read per element"},
    [BW_WRITE] = {"write", 1, 1, 1, "8 B written per element (+8 B write-allocate read)"},
    [BW_RMW] = {"rmw", 1, 2, 0, "8 B read + 8 B written per element (a[i] += 1)"},
    [BW_MEMSET] = {"memset", 1, 1, 1, "8 B written per 8 B set (+8 B write-allocate read, "
                   "unless libc uses non-temporal stores)"},
    [BW_MEMCPY] = {"memcpy", 2, 2, 1, "8 B read + 8 B written per 8 B copied (+8 B "
                   "write-allocate read, unless libc uses non-temporal stores)"},
    [BW_COPY] = {"copy", 2, 2, 1, "STREAM copy a = b: 16 B per element (+8 B write-allocate)"},
    [BW_TRIAD] = {"triad", 3, 3, 1, "STREAM triad a = b + 3 c: 24 B per element "
                  "(+8 B write-allocate)"},
    [BW_WRITE_NT] = {"write-nt", 1, 1, 0, "8 B written per element, non-temporal stores"},
    [BW_COPY_NT] = {"copy-nt", 2, 2, 0, "16 B per element, non-temporal stores"},
    [BW_TRIAD_NT] = {"triad-nt", 3, 3, 0, "24 B per element, non-temporal stores"},
};

int bw_have_nt(void) { return HAVE_NT; }

int bw_mode_by_name(const char *name)
{
    for (int m = 0; m < BW_NMODES; m++)
        if (strcmp(bw_modes[m].name, name) == 0)
            return m;
    return -1;
}

/* Each array is followed by 3 cache lines of padding, so arrays whose size is
 * a multiple of 4 KiB do not alias in the L1 (the reason STREAM has OFFSET). */
#define PAD 192

size_t bw_buffer_bytes(size_t ws) { return ws + 3 * PAD + 64; }

size_t bw_ws_bytes(const bw_buf *w) { return (size_t)bw_modes[w->mode].arrays * 8 * w->n; }

static uint64_t word(size_t i, uint64_t seed) { return (i * 0x9e3779b97f4a7c15ULL) ^ seed; }

void bw_prepare(bw_buf *w, bw_mode mode, char *base, size_t ws, uint64_t seed)
{
    const bw_mode_info *mi = &bw_modes[mode];
    memset(w, 0, sizeof *w);
    w->mode = mode;
    w->n = ws / (8 * (size_t)mi->arrays) / 8 * 8;
    if (w->n < 8)
        w->n = 8;
    size_t step = 8 * w->n + PAD;
    w->a = base;
    w->b = base + step;
    w->c = base + 2 * step;
    uint64_t *a = w->a, *b = w->b;
    double *ad = w->a, *bd = w->b, *cd = w->c;
    size_t n = w->n;
    w->expect_sum = seed;  /* the check value of write/memset/rmw: see bw_check */
    switch (mode) {
    case BW_READ:
        w->expect_sum = 0;
        for (size_t i = 0; i < n; i++) {
            a[i] = word(i, seed);
            w->expect_sum += a[i];
        }
        break;
    case BW_WRITE: case BW_WRITE_NT: case BW_MEMSET:
        memset(a, 0xee, 8 * n);
        break;
    case BW_RMW:
        for (size_t i = 0; i < n; i++)
            a[i] = word(i, seed);
        break;
    case BW_MEMCPY:
        memset(a, 0, 8 * n);
        hpc_fill(b, 8 * n, seed);
        break;
    case BW_COPY: case BW_COPY_NT:
        for (size_t i = 0; i < n; i++) {
            ad[i] = -1.0;
            bd[i] = (double)(word(i, seed) % 4096) + 0.5;
        }
        break;
    case BW_TRIAD: case BW_TRIAD_NT:
        for (size_t i = 0; i < n; i++) {
            ad[i] = -1.0;
            bd[i] = (double)(word(i, seed) % 1024);
            cd[i] = (double)(i % 7) + 0.25;
        }
        break;
    default:
        break;
    }
}

/* The loops must stay loops: at -O3 gcc turns a copy loop into a memcpy call
 * and a constant store loop into memset (other write-allocate behaviour). */
#define KERNEL __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))

static KERNEL uint64_t k_read(const uint64_t *restrict a, size_t n)
{
    /* Integer sums (associative, so the compiler vectorizes them), four
     * independent ones so that two loads per cycle are not held back by the
     * chain of additions. n is a multiple of 8. */
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (size_t i = 0; i < n; i += 8) {
        s0 += a[i];
        s1 += a[i + 1];
        s2 += a[i + 2];
        s3 += a[i + 3];
        s4 += a[i + 4];
        s5 += a[i + 5];
        s6 += a[i + 6];
        s7 += a[i + 7];
    }
    return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}

static KERNEL void k_write(uint64_t *restrict a, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        a[i] = v;
}

static KERNEL void k_rmw(uint64_t *restrict a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] += 1;
}

static KERNEL void k_copy(double *restrict a, const double *restrict b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a[i] = b[i];
}

static KERNEL void k_triad(double *restrict a, const double *restrict b,
                           const double *restrict c, size_t n)
{
    const double s = 3.0;
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

#if HAVE_NT
/* n is a multiple of 8 and the arrays are 64-byte aligned: whole lines. */
static KERNEL void k_write_nt(uint64_t *restrict a, size_t n, uint64_t v)
{
    __m128i x = _mm_set1_epi64x((long long)v);
    for (size_t i = 0; i < n; i += 2)
        _mm_stream_si128((__m128i *)(a + i), x);
    _mm_sfence();
}

static KERNEL void k_copy_nt(double *restrict a, const double *restrict b, size_t n)
{
    for (size_t i = 0; i < n; i += 2)
        _mm_stream_pd(a + i, _mm_load_pd(b + i));
    _mm_sfence();
}

static KERNEL void k_triad_nt(double *restrict a, const double *restrict b,
                              const double *restrict c, size_t n)
{
    const __m128d s = _mm_set1_pd(3.0);
    for (size_t i = 0; i < n; i += 2)
        _mm_stream_pd(a + i, _mm_add_pd(_mm_load_pd(b + i), _mm_mul_pd(s, _mm_load_pd(c + i))));
    _mm_sfence();
}
#endif

void bw_run(bw_buf *w, long reps)
{
    size_t n = w->n;
    for (long r = 0; r < reps; r++) {
        w->calls++;
        uint64_t v = w->expect_sum + w->calls;  /* write/memset: a new value every call */
        switch (w->mode) {
        case BW_READ: w->sum = k_read(w->a, n); break;
        case BW_WRITE: k_write(w->a, n, v); break;
        case BW_RMW: k_rmw(w->a, n); break;
        case BW_MEMSET: memset(w->a, (int)(v & 0xff), 8 * n); break;
        case BW_MEMCPY: memcpy(w->a, w->b, 8 * n); break;
        case BW_COPY: k_copy(w->a, w->b, n); break;
        case BW_TRIAD: k_triad(w->a, w->b, w->c, n); break;
#if HAVE_NT
        case BW_WRITE_NT: k_write_nt(w->a, n, v); break;
        case BW_COPY_NT: k_copy_nt(w->a, w->b, n); break;
        case BW_TRIAD_NT: k_triad_nt(w->a, w->b, w->c, n); break;
#endif
        default: break;
        }
    }
}

void bw_corrupt(bw_buf *w)
{
    uint64_t *a = w->a;
    a[w->n / 2] ^= 0x10;
    if (w->mode == BW_READ)
        w->sum = k_read(w->a, w->n);  /* the read check looks at the last sum */
}

const char *bw_check(bw_buf *w, size_t *where)
{
    size_t n = w->n;
    const uint64_t *a = w->a;
    const unsigned char *ab = w->a;
    const double *ad = w->a, *bd = w->b, *cd = w->c;
    uint64_t v = w->expect_sum + w->calls;
    *where = 0;
    switch (w->mode) {
    case BW_READ:
        return w->calls && w->sum != w->expect_sum ? "the sum of the array is wrong" : NULL;
    case BW_WRITE: case BW_WRITE_NT:
        for (size_t i = 0; i < n; i++)
            if (a[i] != v)
                return *where = i, "an element does not hold the value last written";
        return NULL;
    case BW_MEMSET:
        for (size_t i = 0; i < 8 * n; i++)
            if (ab[i] != (v & 0xff))
                return *where = i, "a byte does not hold the value last set";
        return NULL;
    case BW_RMW:
        for (size_t i = 0; i < n; i++)
            if (a[i] != word(i, w->expect_sum) + w->calls)
                return *where = i, "an element was not incremented once per pass";
        return NULL;
    case BW_MEMCPY: {
        long long bad = hpc_check(w->a, 8 * n, w->expect_sum);
        return bad >= 0 ? (*where = (size_t)bad, "the copy differs from the source") : NULL;
    }
    case BW_COPY: case BW_COPY_NT:
        for (size_t i = 0; i < n; i++)
            if (ad[i] != bd[i])
                return *where = i, "the copy differs from the source";
        return NULL;
    case BW_TRIAD: case BW_TRIAD_NT:
        for (size_t i = 0; i < n; i++)
            if (ad[i] != bd[i] + 3.0 * cd[i])
                return *where = i, "a[i] != b[i] + 3 c[i]";
        return NULL;
    default:
        return "unknown mode";
    }
}
