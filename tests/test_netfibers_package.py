"""``import netfibers``: the public API of algebra and semialgebraic, one version."""

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import algebra
import netfibers
import semialgebraic

ROOT = Path(__file__).resolve().parents[1]


def test_all_names_resolve_to_the_same_objects():
    assert len(netfibers.__all__) == len(set(netfibers.__all__))
    for name in netfibers.__all__:
        obj = getattr(netfibers, name)
        owners = [m for m in (algebra, semialgebraic) if name in m.__all__]
        assert len(owners) == 1, name
        assert obj is getattr(owners[0], name), name


def test_the_whole_public_api_is_re_exported():
    assert set(netfibers.__all__) == set(algebra.__all__) | set(semialgebraic.__all__)


def test_version_is_the_installed_distribution_version():
    assert netfibers.__version__ == algebra.__version__
    assert netfibers.__version__ == importlib.metadata.version("netfibers")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", netfibers.__version__)


def test_pyproject_takes_the_version_from_algebra_and_installs_netfibers():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "algebra.__version__"}
    assert "netfibers" in meta["tool"]["setuptools"]["packages"]["find"]["include"]


def test_cli_version_agrees():
    proc = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "--version"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == f"netfibers {netfibers.__version__}"


def test_import_netfibers_imports_no_sympy_and_no_optional_package():
    code = ("import sys, netfibers; "
            "print([m for m in ('sympy', 'torch', 'onnx', 'z3') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_readme_import_netfibers_example():
    """The README's ``import netfibers`` block runs and gives what its comments say."""
    readme = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "import netfibers" in b]
    assert len(blocks) == 1
    ns: dict = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(blocks[0], "README.md", "exec"), ns)
    finally:
        os.chdir(cwd)
    assert ns["v"].answer is True
    assert netfibers.verify(ns["v"].certificate)[0] is True


def test_load_of_a_model_object_names_the_constructor():
    """`netfibers.load(model)` raised a raw TypeError (new-user audit, session 36)."""
    import pytest
    from algebra.exceptions import InputError
    with pytest.raises(InputError, match=r"load takes a file path, got a list; .*from_rows"):
        netfibers.load([[1]])
    assert "importlib" not in dir(netfibers)
