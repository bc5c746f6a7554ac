"""hpceval's own FFT (csrc/kernels/lib/hfft_own.c: the spectral models' FFT in the FFT=own build
variant), checked against numpy.fft through csrc/tests/fft_probe.c: complex transforms both
ways, real-to-complex and complex-to-real, every length of the radices it writes out (2, 3, 4,
5) and some of the generic prime passes, in batches, to round-off."""
import json
import subprocess

import numpy as np
import pytest

from helpers import ROOT

PROBE = ROOT / "build" / "tests" / "fft_probe"
# the nlons of sst's usual truncations (T5-T170), other 2, 3, 5-smooth lengths, odd and prime ones
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16, 18, 20, 22, 25, 27, 30, 32, 36, 45,
           48, 60, 64, 90, 96, 100, 128, 160, 180, 192, 256, 320, 360, 384, 512, 640]
ROUND_OFF = 1e-13


def probe(kind: str, n: int, howmany: int, numbers: np.ndarray) -> np.ndarray:
    p = subprocess.run([str(PROBE), kind, str(n), str(howmany)], capture_output=True, text=True,
                       input=" ".join(repr(float(x)) for x in numbers.ravel()), timeout=60)
    assert p.returncode == 0, p.stderr
    return np.array(json.loads(p.stdout))


def pairs(z: np.ndarray) -> np.ndarray:
    return np.column_stack([z.real.ravel(), z.imag.ravel()])


def complex_of(x: np.ndarray, howmany: int) -> np.ndarray:
    return (x[0::2] + 1j * x[1::2]).reshape(howmany, -1)


def rel_err(got, want) -> float:
    return float(np.abs(got - want).max() / np.abs(want).max())


@pytest.mark.parametrize("n", LENGTHS)
def test_complex_transforms_equal_numpy(n):
    z = np.random.default_rng(n).standard_normal((3, 2 * n)).view(complex)
    assert rel_err(complex_of(probe("forward", n, 3, pairs(z)), 3), np.fft.fft(z)) < ROUND_OFF
    back = complex_of(probe("backward", n, 3, pairs(z)), 3)
    assert rel_err(back, np.fft.ifft(z) * n) < ROUND_OFF        # unnormalised, as FFTW's


@pytest.mark.parametrize("n", [n for n in LENGTHS if n % 2 == 0])
def test_real_transforms_equal_numpy(n):
    x = np.random.default_rng(n).standard_normal((3, n))
    assert rel_err(complex_of(probe("r2c", n, 3, x), 3), np.fft.rfft(x)) < ROUND_OFF
    spectrum = np.fft.rfft(x)
    spectrum[:, 0] += 5j            # the imaginary parts of the mean and the Nyquist term are
    spectrum[:, -1] -= 3j           # ignored, as FFTW's c2r ignores them
    got = probe("c2r", n, 3, pairs(spectrum)).reshape(3, n)
    assert rel_err(got, x * n) < ROUND_OFF


def test_an_odd_real_length_has_no_plan():
    p = subprocess.run([str(PROBE), "r2c", "15", "1"], input="0 " * 15, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 3 and "no plan" in p.stderr
