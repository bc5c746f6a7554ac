"""packaging/spack (a Spack package repository, namespace hpceval) without Spack: valid Python,
a PythonPackage of the v2 package API declaring the variants and dependencies the docs promise,
and every Python dependency of pyproject.toml, and its build-system's setuptools, with its
minimum version (so the recipe does not drift from the package). A real Spack reads it in
benchmarks/spack_check.py (too slow, and no Spack checkout, for make test)."""
import ast
import re
import tomllib

from helpers import ROOT

SPACK_REPO = ROOT / "packaging" / "spack" / "spack_repo" / "hpceval"
RECIPE = SPACK_REPO / "packages" / "hpceval" / "package.py"


def _calls(tree: ast.AST, name: str):
    """(first argument, keyword arguments) of each call to `name` in the class body."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
            kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            out.append((ast.literal_eval(node.args[0]), kw))
    return out


def test_recipe_parses_and_declares_variants_and_dependencies():
    tree = ast.parse(RECIPE.read_text(), filename=str(RECIPE))
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert cls.name == "Hpceval" and [b.id for b in cls.bases] == ["PythonPackage"]
    variants = {name: kw for name, kw in _calls(cls, "variant")}
    assert set(variants) == {"native", "otf2"}
    assert all(isinstance(kw["default"], bool) and kw["description"] for kw in variants.values())
    deps = {spec.split("@")[0]: (spec, kw) for spec, kw in _calls(cls, "depends_on")}
    assert {"mpi", "fftw-api", "openblas", "python", "py-numpy", "py-setuptools", "gmake"} <= set(deps)
    assert deps["py-otf2"][1]["when"] == "+otf2"
    assert "build" in deps["py-numpy"][1]["type"] and "run" in deps["py-numpy"][1]["type"]
    assert {f.name for f in cls.body if isinstance(f, ast.FunctionDef)} >= {"setup_build_environment"}


def test_recipe_matches_pyproject():
    tree = ast.parse(RECIPE.read_text())
    deps = {spec.split("@")[0]: spec for spec, _ in _calls(tree, "depends_on")}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for req in project["dependencies"]:
        name, minimum = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", req).groups()
        assert deps.get(f"py-{name.lower()}") == f"py-{name.lower()}@{minimum}:", req
    py = re.fullmatch(r">=([0-9.]+)", project["requires-python"]).group(1)
    assert deps["python"] == f"python@{py}:"
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    [setuptools] = [re.fullmatch(r"setuptools>=([0-9.]+)", r).group(1) for r in build]
    assert deps["py-setuptools"] == f"py-setuptools@{setuptools}:"


def test_a_spack_repository_of_the_v2_package_api():
    assert (SPACK_REPO / "repo.yaml").read_text().split() == ["repo:", "namespace:", "hpceval",
                                                               "api:", "v2.0"]
    imports = [n for n in ast.parse(RECIPE.read_text()).body if isinstance(n, ast.ImportFrom)]
    assert [(i.module, [a.name for a in i.names]) for i in imports] == [
        ("spack_repo.builtin.build_systems.python", ["PythonPackage"]), ("spack.package", ["*"])]
