/* fft_probe.c - exposes hpceval's own FFT (csrc/kernels/lib/hfft_own.c, the FFT=own build
 * variant of the spectral models) to the test suite (tests/csrc/test_fft.py), which checks it
 * against numpy.fft.
 *
 *   fft_probe KIND N HOWMANY      KIND: r2c, c2r, forward or backward (complex, in place)
 *
 * stdin: the input numbers (real, or complex as real and imaginary pairs), HOWMANY
 * transforms one after another (N reals or N/2+1 complex for a real transform, N complex
 * else); stdout: the output numbers the same way, one JSON list. */
#include "../kernels/lib/hfft_own.c"

#include <stdio.h>

static int read_all(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (scanf("%lf", &x[i]) != 1)
            return -1;
    return 0;
}

static void print_all(const double *x, size_t n)
{
    printf("[");
    for (size_t i = 0; i < n; i++)
        printf("%s%.17g", i ? ", " : "", x[i]);
    printf("]\n");
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: fft_probe r2c|c2r|forward|backward N HOWMANY\n");
        return 2;
    }
    const char *kind = argv[1];
    int n = atoi(argv[2]), howmany = atoi(argv[3]), nc = n / 2 + 1;
    int real_in = !strcmp(kind, "r2c"), cplx = !strcmp(kind, "forward") || !strcmp(kind, "backward");
    size_t nin = (size_t)howmany * (real_in ? n : cplx ? 2 * n : 2 * nc);
    size_t nout = (size_t)howmany * (real_in ? 2 * nc : cplx ? 2 * n : n);
    double *in = hfft_malloc(nin * sizeof(double)), *out = hfft_malloc(nout * sizeof(double));
    if (!in || !out || read_all(in, nin)) {
        fprintf(stderr, "fft_probe: expected %zu numbers on stdin\n", nin);
        return 2;
    }
    hfft_plan *p = real_in ? hfft_plan_r2c(n, howmany, in, n, (hfft_complex *)out, nc, 0)
                 : cplx ? hfft_plan_c2c(n, howmany, (hfft_complex *)in, n,
                                        !strcmp(kind, "forward") ? HFFT_FORWARD : HFFT_BACKWARD, 0)
                 : hfft_plan_c2r(n, howmany, (hfft_complex *)in, nc, out, n, 0);
    if (!p) {
        fprintf(stderr, "fft_probe: no plan for %s of length %d\n", kind, n);
        return 3;
    }
    if (real_in)
        hfft_r2c(p, in, (hfft_complex *)out);
    else if (cplx)
        hfft_c2c(p, (hfft_complex *)in);
    else
        hfft_c2r(p, (hfft_complex *)in, out);
    print_all(cplx ? in : out, nout);
    hfft_destroy(p);
    return 0;
}
