"""The peak's facts (hpceval/cpupeak.py): the vector unit from the CPU flags, the nominal clock
from cpufreq's base frequency or the model name, and never from a VM's 'cpu MHz'."""
from hpceval import cpupeak

XEON = "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\nflags\t\t: fpu sse2 avx avx2 fma avx512f\ncpu MHz\t\t: 3900.0\n"
EPYC_VM = "model name\t: AMD EPYC\nflags\t\t: sse2 avx avx2 fma\ncpu MHz\t\t: 2596.148\n"
ARM = "Processor\t: ARMv8\nFeatures\t: fp asimd sve\n"


def test_nominal_clock_from_the_model_name_not_the_turbo(tmp_path):
    f = cpupeak.facts(XEON, sysfs=tmp_path, sve_path=tmp_path / "none")
    assert f["cpu_isa"] == ["avx", "avx2", "avx512f", "fma", "sse2"]
    assert (f["nominal_mhz"], f["nominal_mhz_source"]) == (2100.0, "the CPU model name")


def test_cpufreq_base_frequency_first(tmp_path):
    (tmp_path / "cpu0" / "cpufreq").mkdir(parents=True)
    (tmp_path / "cpu0" / "cpufreq" / "base_frequency").write_text("2300000\n")
    f = cpupeak.facts(XEON, sysfs=tmp_path, sve_path=tmp_path / "none")
    assert (f["nominal_mhz"], f["nominal_mhz_source"]) == (2300.0, "cpufreq base_frequency")


def test_a_vm_clock_is_unknown_with_the_reason(tmp_path):
    f = cpupeak.facts(EPYC_VM, sysfs=tmp_path, sve_path=tmp_path / "none")
    assert f["nominal_mhz"] is None and "no nominal clock readable" in f["nominal_mhz_source"]


def test_vector_units_and_flops_per_cycle(tmp_path):
    unit = cpupeak.vector_unit(["sse2", "avx", "avx2", "fma", "avx512f"])
    assert unit.name == "AVX-512 with FMA" and cpupeak.flops_per_cycle_per_pipe(unit) == 16
    assert cpupeak.flops_per_cycle_per_pipe(cpupeak.vector_unit(["avx2", "fma", "sse2"])) == 8
    assert cpupeak.flops_per_cycle_per_pipe(cpupeak.vector_unit(["avx", "sse2"])) == 4
    assert cpupeak.flops_per_cycle_per_pipe(cpupeak.vector_unit(["sse2"])) == 2
    (tmp_path / "sve").write_text("32\n")
    f = cpupeak.facts(ARM, sysfs=tmp_path, sve_path=tmp_path / "sve")
    sve = cpupeak.vector_unit(f["cpu_isa"], f["sve_bytes"])
    assert sve.doubles == 4 and cpupeak.flops_per_cycle_per_pipe(sve) == 8
    assert cpupeak.vector_unit(["asimd"]).doubles == 2
    assert cpupeak.vector_unit([]) is None
