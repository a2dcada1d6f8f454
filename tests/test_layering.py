"""Layering rules of STYLE C1 and the verify rule of ARCHITECTURE.md, as tests that cannot be fooled.

Every module of ``algebra/`` and ``semialgebraic/`` is parsed (``ast``) and every import is
collected wherever it stands (module level, inside functions, classes, ``try`` and ``if``
blocks): ``import x``, ``from x import y`` (relative ones resolved to absolute module names),
``importlib.import_module("x")`` (also through aliases, with a ``package`` argument, and for an
f-string its constant prefix, ``{__name__}`` substituted), and ``__import__("x")``.  A dynamic
import whose target cannot be resolved at all is itself a violation.

Rules
-----
1. Only the doors ``algebra.rationals``, ``algebra.linalg``, ``algebra.polynomials`` import
   ``flint`` (true today: no other module does).
2. ``algebra`` never imports ``semialgebraic``.
3. ``algebra.kernel`` imports only ``algebra`` and the standard library (no third-party module,
   not even flint: it works through the doors).
4. ``semialgebraic.verify.*`` imports only ``algebra``, ``semialgebraic.verify`` and the
   standard library, plus numpy (an optional accelerator of exact modular ranks, see
   ``VERIFY_THIRD_PARTY``); never ``semialgebraic.exceptions`` or any deciding module.
5. Every other ``semialgebraic`` module imports from ``semialgebraic.verify`` only the name
   ``verify`` (``from .verify import verify``), with the exceptions of ``VERIFY_EXCEPTIONS``.
6. Package-to-package edges are limited to ``ALLOWED_EDGES``; third-party packages to
   ``THIRD_PARTY`` (with the packages allowed to use each).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIRST_PARTY = ("algebra", "semialgebraic")
DOORS = {"algebra.rationals", "algebra.polynomials", "algebra.linalg.qmatrix", "algebra.linalg.evaluation",
         "algebra.linalg.intervals", "algebra.linalg.gfp"}
STDLIB = set(sys.stdlib_module_names) | {"__future__"}

# package (of the importing module) -> first-party packages it may import from
ALLOWED_EDGES = {
    # the most specific key that is a prefix of the importing package applies; an entry ending
    # in ".*" allows that package and every subpackage of it
    "algebra": {"algebra.*"},
    "algebra.kernel": {"algebra", "algebra.linalg", "algebra.io", "algebra.kernel"},
    "semialgebraic": {"algebra.*", "semialgebraic.*"},     # from verify: only `verify` (rule 5)
    "semialgebraic.verify": {"algebra.*", "semialgebraic.verify"},
}


def _rule_for(table: dict, pkg: str):
    """The entry of *table* for the longest key that is *pkg* or a parent package of it."""
    keys = [k for k in table if pkg == k or pkg.startswith(k + ".")]
    return table[max(keys, key=len)] if keys else None


def _allowed(target_pkg: str, entries) -> bool:
    return any(target_pkg == e or (e.endswith(".*") and (target_pkg == e[:-2]
               or target_pkg.startswith(e[:-1]))) for e in entries or ())


# third-party top-level package -> (first-party packages that may import it, why)
THIRD_PARTY = {
    "flint": ({"algebra"}, "the exact backend; only the three doors (rule 1)"),
    "numpy": ({"algebra", "algebra.io", "semialgebraic", "semialgebraic.commands", "semialgebraic.verify"},
              "binary weight files, float64 BLAS products that stay exact mod p"),
    "networkx": ({"semialgebraic"}, "symmetry graphs"),
    "sympy": ({"algebra", "semialgebraic", "semialgebraic.commands"}, "LaTeX/sympy export (lazy)"),
    "torch": ({"algebra.io"}, "optional reader of state_dicts (lazy)"),
    "onnx": ({"algebra.io"}, "optional reader (lazy)"),
    "safetensors": ({"algebra.io"}, "optional reader (lazy)"),
    "h5py": ({"algebra.io"}, "optional reader of Keras .h5 files (lazy)"),
    "highspy": ({"semialgebraic"}, "optional float LP used only as a hint, re-decided exactly"),
    "z3": ({"semialgebraic"}, "optional solver used only as a hint, re-decided exactly"),
    "scipy": ({"semialgebraic"}, "optional Qhull convex hulls guessing region facets (lazy), "
              "re-decided exactly"),
    "matplotlib": ({"semialgebraic.plot", "algebra"},
                   "optional pictures (lazy): the plot renderer; algebra.display's _repr_png_"),
    "dask": ({"semialgebraic.distributed"}, "optional: batch jobs and searches on a Dask cluster (lazy)"),
    "distributed": ({"semialgebraic.distributed"}, "optional: dask.distributed client/LocalCluster (lazy)"),
    "threadpoolctl": ({"semialgebraic.distributed"},
                      "optional: one BLAS/OpenMP thread in each Dask worker process (lazy)"),
}
VERIFY_THIRD_PARTY = {"numpy"}       # rule 4: optional, the modular ranks are exact either way

# (importing package, name) imported from semialgebraic.verify besides ``verify`` -> reason
VERIFY_EXCEPTIONS = {
    ("semialgebraic.commands", "check_inputs_match"):
        "the CLI's `verify CERT A B` compares the embedded inputs with the given files: part of "
        "the checker's interface, not a decision",
    ("semialgebraic.distributed", "verify_part"):
        "a distributed search checks the independent parts of its bab_cover / region_cover / bab_bound "
        "certificate on the "
        "workers (the checker's own split, not a decision)",
    ("semialgebraic.commands", "resolve_sidecar"):
        "the CLI's `verify CERT` reads a large certificate's binary sidecar (digest checked) "
        "before checking: part of the checker's interface, not a decision",
}


@dataclass(frozen=True)
class Edge:
    """One import of *source*: *target* is an absolute module name (or a dynamic prefix ending
    in ``.*``, or None when a dynamic import cannot be resolved), *name* the imported name of a
    ``from`` import (None for ``import x``)."""

    source: str
    target: str | None
    name: str | None
    line: int


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the first-party packages: dotted name -> file."""
    out = {}
    for pkg in FIRST_PARTY:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """Absolute module of a relative import ``from {'.' * level}{name} import …`` in *module*."""
    if level == 0:
        return name or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(parts) - 1:
        raise ImportError(f"relative import beyond the top-level package in {module}")
    base = parts[:len(parts) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _constant_prefix(node, module: str, package: str):
    """A string (full target), a prefix ending in '.*' (f-string), or None (unresolvable)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        prefix = ""
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                prefix += part.value
            elif isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name) \
                    and part.value.id in ("__name__", "__package__"):
                prefix += module if part.value.id == "__name__" else package
            else:
                break
        else:
            return prefix
        if prefix.endswith(".") and len(prefix) > 1:
            return prefix + "*"
    return None


def collect(module: str, source: str, is_package: bool = False) -> list[Edge]:
    """Every import of *module* (source text), wherever it stands."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    importlib_names = {"importlib"}          # names bound to the importlib module
    loader_names = {"__import__"}            # names bound to import_module / __import__
    for node in ast.walk(tree):              # aliases first (an alias may be bound anywhere)
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "importlib":
                    importlib_names.add(a.asname or "importlib")
        elif isinstance(node, ast.ImportFrom) and node.module == "importlib" and not node.level:
            for a in node.names:
                if a.name in ("import_module", "__import__"):
                    loader_names.add(a.asname or a.name)
    edges = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            edges += [Edge(module, a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            edges += [Edge(module, base, a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.Call):
            f = node.func
            dynamic = (isinstance(f, ast.Name) and f.id in loader_names) or (
                isinstance(f, ast.Attribute) and f.attr in ("import_module", "__import__")
                and isinstance(f.value, ast.Name) and f.value.id in importlib_names)
            if not dynamic:
                continue
            if not node.args:
                edges.append(Edge(module, None, None, node.lineno))
                continue
            target = _constant_prefix(node.args[0], module, package)
            if target is not None and target.startswith("."):
                pkg_arg = node.args[1] if len(node.args) > 1 else next(
                    (k.value for k in node.keywords if k.arg == "package"), None)
                pkg = _constant_prefix(pkg_arg, module, package) if pkg_arg is not None else None
                if pkg is None or pkg.endswith("*"):
                    target = None
                else:
                    level = len(target) - len(target.lstrip("."))
                    target = _resolve(pkg, True, level, target.lstrip(".") or None)
            edges.append(Edge(module, target, None, node.lineno))
    return edges


def _package_of(module: str, known: dict) -> str:
    """The package a module belongs to (a package's ``__init__`` belongs to itself)."""
    path = known.get(module)
    if path is not None and path.name == "__init__.py":
        return module
    return module.rpartition(".")[0] or module


def _effective(edge: Edge, known: dict) -> str:
    """The module an edge really reaches: ``from pkg import mod`` reaches ``pkg.mod``."""
    if edge.name is not None and f"{edge.target}.{edge.name}" in known:
        return f"{edge.target}.{edge.name}"
    return edge.target


def violations(edge: Edge, known: dict) -> list[str]:
    """The rules *edge* breaks (empty when it is allowed)."""
    where = f"{edge.source}:{edge.line}"
    if edge.target is None:
        return [f"{where}: a dynamic import whose target cannot be resolved"]
    target = _effective(edge, known)
    if target.endswith(".*"):
        prefix = target[:-2]
        top = prefix.split(".")[0]
    else:
        prefix, top = target, target.split(".")[0]
    src_pkg = _package_of(edge.source, known)
    src_top = edge.source.split(".")[0]
    out = []
    if top == "flint" and edge.source not in DOORS:
        out.append(f"{where}: imports flint (only {sorted(DOORS)} may)")
    if src_top == "algebra" and top == "semialgebraic":
        out.append(f"{where}: algebra imports {target}")
    if top in FIRST_PARTY:
        # the package of the target: a known module's package, or (a prefix) the prefix itself
        tgt_pkg = _package_of(prefix, known) if prefix in known else prefix
        if not _allowed(tgt_pkg, _rule_for(ALLOWED_EDGES, src_pkg)):
            out.append(f"{where}: edge {src_pkg} -> {tgt_pkg} ({target}) is not in ALLOWED_EDGES")
        in_verify = prefix == "semialgebraic.verify" or prefix.startswith("semialgebraic.verify.")
        if in_verify and not src_pkg.startswith("semialgebraic.verify"):
            ok = (target == edge.target == "semialgebraic.verify" and edge.name is not None
                  and (edge.name == "verify" or (src_pkg, edge.name) in VERIFY_EXCEPTIONS))
            if not ok:
                out.append(f"{where}: a deciding module imports {target}"
                           f"{'.' + edge.name if edge.name else ''} (only `verify` is allowed)")
        if src_pkg.startswith("semialgebraic.verify") and top == "semialgebraic" and not in_verify:
            out.append(f"{where}: the checker imports {target}")
    elif top not in STDLIB:
        allowed, _ = THIRD_PARTY.get(top, (set(), ""))
        if not any(src_pkg == a or src_pkg.startswith(a + ".") for a in allowed):
            out.append(f"{where}: {src_pkg} imports the third-party {top}")
        if src_pkg == "algebra.kernel":
            out.append(f"{where}: the kernel imports the third-party {top}")
        if src_pkg.startswith("semialgebraic.verify") and top not in VERIFY_THIRD_PARTY:
            out.append(f"{where}: the checker imports the third-party {top}")
    return out


def all_edges(root: Path = ROOT) -> tuple[list[Edge], dict]:
    known = module_names(root)
    edges = []
    for name, path in known.items():
        edges += collect(name, path.read_text(), is_package=path.name == "__init__.py")
    return edges, known


@lru_cache(maxsize=None)
def _real() -> tuple[list[Edge], dict]:
    return all_edges(ROOT)


# -- the rules on the real code -----------------------------------------------------------------
def test_every_import_follows_the_rules():
    edges, known = _real()
    assert len(known) > 80 and len(edges) > 500            # the walk really saw the code
    bad = [v for e in edges for v in violations(e, known)]
    assert bad == []


def test_only_the_doors_import_flint():
    edges, known = _real()
    importers = {e.source for e in edges if e.target and e.target.split(".")[0] == "flint"}
    assert importers == DOORS


def test_algebra_never_imports_semialgebraic():
    edges, known = _real()
    assert [e for e in edges if e.source.startswith("algebra")
            and (e.target is None or e.target.startswith("semialgebraic"))] == []


def test_deciders_import_only_verify_from_the_checker():
    edges, known = _real()
    names = {(e.source, _effective(e, known), e.name) for e in edges
             if e.target and e.target.startswith("semialgebraic.verify")
             and not e.source.startswith("semialgebraic.verify")}
    assert {(t, n) for _, t, n in names} == {("semialgebraic.verify", "verify"),
                                            ("semialgebraic.verify", "check_inputs_match"),
                                            ("semialgebraic.verify", "resolve_sidecar"),
                                            ("semialgebraic.verify", "verify_part")}
    assert {s for s, _, n in names if n == "verify_part"} == {"semialgebraic.distributed.search",
                                                              "semialgebraic.distributed.tree"}
    assert {s for s, _, n in names if n == "check_inputs_match"} == {"semialgebraic.commands.shallow"}
    assert {s for s, _, n in names if n == "resolve_sidecar"} == {"semialgebraic.commands.shallow"}


def test_kernel_imports_only_algebra_and_stdlib():
    edges, known = _real()
    kernel = [e for e in edges if e.source.startswith("algebra.kernel")]
    assert kernel, "the kernel has modules"
    assert {e.target.split(".")[0] for e in kernel} <= {"algebra"} | STDLIB


def test_verify_imports_only_algebra_and_itself():
    edges, known = _real()
    tops = {e.target.split(".")[0] if not e.target.startswith("semialgebraic.verify") else "verify"
            for e in edges if e.source.startswith("semialgebraic.verify")}
    assert tops - STDLIB == {"algebra", "verify", "numpy"}


def test_dynamic_imports_today_are_the_two_dispatchers():
    edges, known = _real()
    dyn = sorted((e.source, e.target) for e in edges if e.target and e.target.endswith(".*"))
    assert dyn == [("semialgebraic.cli", "semialgebraic.commands.*"),
                   ("semialgebraic.verify", "semialgebraic.verify.*")]


# -- the walker catches planted violations ------------------------------------------------------
def _bad(module: str, source: str, is_package: bool = False) -> list[str]:
    known = module_names()
    return [v for e in collect(module, source, is_package) for v in violations(e, known)]


PLANTED = [
    ("function-level import of a checker internal",
     "semialgebraic.fake", "def f():\n    from semialgebraic.verify.region_cover import interval_bounds\n"),
    ("relative import of a checker internal",
     "semialgebraic.fake", "from .verify.exercise import _offsets\n"),
    ("relative import of a checker module",
     "semialgebraic.fake", "from .verify import region_cover\n"),
    ("relative import of a private name of the verify package",
     "semialgebraic.fake", "from .verify import CHECKERS\n"),
    ("the verify package as a module, relative",
     "semialgebraic.fake", "from . import verify\n"),
    ("import of the verify package itself",
     "semialgebraic.fake", "import semialgebraic.verify.exercise as ex\n"),
    ("two-level relative import from a subpackage",
     "semialgebraic.commands.fake", "if True:\n    from ..verify.functional_dimension import _upper_vectors\n"),
    ("importlib.import_module with a constant",
     "semialgebraic.fake", "import importlib\nm = importlib.import_module('semialgebraic.verify.exercise')\n"),
    ("aliased importlib",
     "semialgebraic.fake", "import importlib as il\ndef g():\n    return il.import_module('semialgebraic.verify.exercise')\n"),
    ("import_module imported by name, relative with a package",
     "semialgebraic.fake", "from importlib import import_module as im\nm = im('.verify.exercise', 'semialgebraic')\n"),
    ("f-string prefix into the checker",
     "semialgebraic.fake", "import importlib\ndef g(k):\n    return importlib.import_module(f'semialgebraic.verify.{k}')\n"),
    ("unresolvable dynamic import",
     "semialgebraic.fake", "import importlib\ndef g(name):\n    return importlib.import_module(name)\n"),
    ("__import__ of flint outside the doors",
     "algebra.network2", "def g():\n    return __import__('flint')\n"),
    ("flint outside the doors",
     "algebra.kernel.fake", "try:\n    import flint\nexcept ImportError:\n    pass\n"),
    ("algebra importing semialgebraic in a function",
     "algebra.fake", "class C:\n    def m(self):\n        import semialgebraic.lp\n"),
    ("the kernel importing a third-party module",
     "algebra.kernel.fake", "import numpy as np\n"),
    ("the checker importing a decider (relative)",
     "semialgebraic.verify.fake", "from .. import lp\n"),
    ("the checker importing semialgebraic.exceptions",
     "semialgebraic.verify.fake", "from ..exceptions import CertificateError\n"),
    ("the checker importing networkx",
     "semialgebraic.verify.fake", "def f():\n    import networkx\n"),
    ("a package edge not in the table",
     "algebra.kernel.fake", "from algebra.symmetries import Step\n"),
]


@pytest.mark.parametrize("why, module, source", PLANTED, ids=[p[0] for p in PLANTED])
def test_walker_catches_planted_violation(why, module, source):
    assert _bad(module, source), why


ALLOWED = [
    ("the verify entry point", "semialgebraic.fake", "from .verify import verify\n"),
    ("the verify entry point, absolute, in a function", "semialgebraic.fake",
     "def f():\n    from semialgebraic.verify import verify\n"),
    ("the CLI helper from a command", "semialgebraic.commands.fake",
     "from ..verify import check_inputs_match, verify\n"),
    ("the kernel from a decider", "semialgebraic.fake", "from algebra.kernel import interval_bounds\n"),
    ("the kernel from the checker", "semialgebraic.verify.fake", "from algebra.kernel import domain_rows\n"),
    ("checker modules among themselves", "semialgebraic.verify.fake", "from .exercise import check_proof\n"),
    ("a door importing flint", "algebra.linalg.qmatrix", "from flint import fmpq_mat\n"),
]


@pytest.mark.parametrize("why, module, source", ALLOWED, ids=[p[0] for p in ALLOWED])
def test_walker_allows(why, module, source):
    assert _bad(module, source) == [], why


def test_walker_resolves_relative_imports():
    edges = collect("semialgebraic.commands.shallow", "from ..verify import verify\nfrom . import common\n")
    assert [(e.target, e.name) for e in edges] == [("semialgebraic.verify", "verify"),
                                                   ("semialgebraic.commands", "common")]
    edges = collect("semialgebraic.verify", "from . import exercise\n", is_package=True)
    assert [(e.target, e.name) for e in edges] == [("semialgebraic.verify", "exercise")]
    src = ("import importlib\nm = importlib.import_module(f'{__name__}.x')\n"
           "n = importlib.import_module(f'{__name__}.{k}')\n")
    edges = collect("semialgebraic.verify", src, is_package=True)
    assert [e.target for e in edges] == ["importlib", "semialgebraic.verify.x", "semialgebraic.verify.*"]


def test_walker_on_a_planted_file(tmp_path):
    """The whole walk (files on disk, module names from paths) finds a planted violation."""
    for pkg in FIRST_PARTY:
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
    (tmp_path / "semialgebraic" / "verify").mkdir()
    (tmp_path / "semialgebraic" / "verify" / "__init__.py").write_text("def verify(c): ...\n")
    (tmp_path / "semialgebraic" / "verify" / "exercise.py").write_text("def check_proof(): ...\n")
    (tmp_path / "semialgebraic" / "ok.py").write_text("from .verify import verify\n")
    edges, known = all_edges(tmp_path)
    assert [v for e in edges for v in violations(e, known)] == []
    (tmp_path / "semialgebraic" / "bad.py").write_text(
        "def f():\n    from .verify import exercise\n    return exercise.check_proof\n")
    edges, known = all_edges(tmp_path)
    bad = [v for e in edges for v in violations(e, known)]
    assert len(bad) == 1 and "semialgebraic.bad:2" in bad[0] and "semialgebraic.verify.exercise" in bad[0]


def test_help_does_not_import_sympy():
    code = ("import sys; from semialgebraic.cli import build_parser; build_parser(); "
            "print('sympy' in sys.modules, 'torch' in sys.modules, 'onnx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False False"
