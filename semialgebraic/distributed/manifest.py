"""Manifests of a batch: a directory, a glob, or a CSV / JSON Lines file of models or pairs.

:func:`read_manifest` turns a manifest into a list of *items*: plain dicts ``{"id": str,
"paths": [path, ...], "box": str | None}`` (one path for the single-model jobs, two for the pair
jobs ``equiv`` and ``diff``), plus the item's own ``ball``, ``orthant`` and ``epsilon`` when given.  Items hold file paths only (strings), so a task shipped to a Dask
worker carries no Python object of the project.

* a directory: every model file in it (``.json``, ``.safetensors``, ``.onnx``, ``.npz``, ``.pt``,
  ``.pth``), sorted by name;
* a glob (``zoo/*.json``): the matching files, sorted;
* ``.csv``: a header row; the model column is ``model`` (or ``path``/``file``), pairs are
  ``a,b``; optional ``id`` and the item's domain, in the grammar of ``--box`` / ``--ball`` /
  ``--orthant`` / ``--epsilon`` (:mod:`algebra.io.domain_text`): ``box`` (``-1,1``, ``-1:1,0:2``,
  ``file``, a JSON domain file relative to the manifest, or inline JSON), ``ball`` (``x1,…,xd,R``),
  ``orthant`` (true/false), ``epsilon`` (equiv only), ``activation`` (absorb of a weight file's
  MLP blocks); an item without them takes the
  command-line default; an item's id (unless given) is its paths and domain, so one pair may be
  listed once per domain;
* ``.jsonl``: one JSON object per line with the same keys (or a bare string: a model path).

Relative paths in a CSV/JSON Lines file are relative to the manifest's directory.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "pairs.csv").write_text("a,b\\nx.json,y.json\\n")
>>> [i["paths"] for i in read_manifest(str(d / "pairs.csv"), pairs=True)] == [[str(d / "x.json"), str(d / "y.json")]]
True
"""

from __future__ import annotations

import csv
import glob
import json
from decimal import Decimal
from pathlib import Path

from algebra.exceptions import InputError

__all__ = ["read_manifest", "MODEL_SUFFIXES"]

MODEL_SUFFIXES = (".json", ".safetensors", ".onnx", ".npz", ".pt", ".pth", ".nnet", ".h5", ".hdf5")


def _single(path: str) -> dict:
    return {"id": path, "paths": [path], "box": None}


KNOWN_KEYS = {"id", "a", "b", "model", "path", "file", "box", "ball", "orthant", "epsilon",
              "activation"}
"""The columns / keys a manifest row may have; any other is refused (a misspelt ``epsilom``
was ignored and an exact question decided instead: input audit, session 35)."""


def _row_item(row: dict, base: Path, pairs: bool, source: str, where: str) -> dict:
    unknown = sorted(set(row) - KNOWN_KEYS)
    if unknown:
        raise InputError(f"{where}: unknown column/key {unknown[0]!r} (known: "
                         f"{', '.join(sorted(KNOWN_KEYS))})", source=source)

    def resolve(p):
        if not isinstance(p, str) or not p.strip():
            raise InputError(f"{where}: a path must be a non-empty string", source=source)
        p = p.strip()
        return p if Path(p).is_absolute() else str(base / p)
    dom = {}
    for key in ("box", "ball", "orthant", "epsilon"):
        v = row.get(key)
        if v is None or v == "":
            continue
        if key in ("box", "ball", "epsilon") and not isinstance(v, str):
            v = json.dumps(v, default=str) if key == "box" and isinstance(v, (list, dict)) else \
                ",".join(map(str, v)) if isinstance(v, list) else str(v)
        if key == "box" and v.strip().endswith(".json") and not Path(v.strip()).is_absolute():
            v = str(base / v.strip())           # a domain file, relative to the manifest
        dom[key] = v
    if pairs:
        if "a" not in row or "b" not in row:
            raise InputError(f"{where}: a pair needs columns/keys 'a' and 'b'", source=source)
        paths = [resolve(row["a"]), resolve(row["b"])]
    else:
        key = next((k for k in ("model", "path", "file") if k in row), None)
        if key is None:
            raise InputError(f"{where}: a model needs a column/key 'model' (or 'path', 'file')",
                             source=source)
        paths = [resolve(row[key])]
    # one pair on several domains is several items (new-user audit: 'listed twice' refused it)
    ident = row.get("id") or " | ".join(paths + [f"{k}={v}" for k, v in dom.items()])
    act = row.get("activation")      # (absorb: the activation of a weight file's MLP blocks)
    extra = {"activation": str(act).strip()} if act not in (None, "") else {}
    return {"id": str(ident), "paths": paths, "box": None, **dom, **extra}


def _no_duplicates(pairs: list) -> dict:
    keys = [k for k, _ in pairs]
    twice = next((k for k in keys if keys.count(k) > 1), None)
    if twice is not None:
        raise ValueError(f"key {twice!r} given twice")
    return dict(pairs)


def read_manifest(spec: str, *, pairs: bool = False) -> list[dict]:
    """The items of the manifest *spec* (see the module docstring); pair jobs need a CSV or JSON
    Lines file.  Raises :class:`InputError` naming the manifest for any problem."""
    p = Path(spec)
    if any(ch in spec for ch in "*?[") and not p.exists():
        files = sorted(glob.glob(spec))
        if not files:
            raise InputError("the glob matches no file", source=spec)
        if pairs:
            raise InputError("a pair job needs a CSV or JSON Lines manifest of pairs a,b", source=spec)
        return [_single(f) for f in files]
    if p.is_dir():
        if pairs:
            raise InputError("a pair job needs a CSV or JSON Lines manifest of pairs a,b", source=spec)
        files = sorted(str(f) for f in p.iterdir() if f.is_file() and f.suffix.lower() in MODEL_SUFFIXES)
        other = sorted(f.name for f in p.iterdir() if f.is_file() and f.suffix.lower() not in MODEL_SUFFIXES
                       and not f.name.startswith("."))
        if not files:
            raise InputError("the directory holds no model file", source=spec)
        if other:                  # never silently: the files a directory item list leaves out
            import sys
            shown = ", ".join(other[:5]) + (f" and {len(other) - 5} more" if len(other) > 5 else "")
            print(f"netfibers: note: {spec}: {len(other)} file{'s' * (len(other) != 1)} without a "
                  f"model suffix ({', '.join(MODEL_SUFFIXES)}) left out: {shown}", file=sys.stderr)
        return [_single(f) for f in files]
    if not p.is_file():
        raise InputError(("not a regular file" if p.exists() else "no such manifest") +   # (a FIFO:
                         " (a manifest is a directory, a glob, a .csv or a .jsonl file)",  # s48 B3)
                         source=spec)
    base = p.parent
    items: list[dict] = []
    if p.suffix.lower() in MODEL_SUFFIXES and p.suffix.lower() not in (".csv", ".jsonl", ".json"):
        # (one weight file given as the manifest: a raw codec error said nothing: s52 docs F9)
        raise InputError("a weight file, not a manifest: batch reads many models from a directory, a "
                         "glob, a .csv or a .jsonl file (one model: use the command itself, e.g. "
                         "netfibers absorb FILE --all)", source=spec)
    try:
        text = p.read_text(encoding="utf-8-sig")   # a BOM (Excel, Notepad) is not data
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the manifest ({exc})", source=spec) from None
    suffix = p.suffix.lower()
    if suffix == ".csv":
        reader = csv.DictReader(text.splitlines())
        header = [h.strip() for h in (reader.fieldnames or [])]
        twice = sorted({h for h in header if header.count(h) > 1})
        if twice:
            raise InputError(f"the header names column {twice[0]!r} twice", source=spec)
        try:
            rows = list(reader)
        except csv.Error as exc:                  # (a field over 131 072 characters: exit 4, s48 B1)
            raise InputError(f"not a readable CSV file ({exc})", source=spec) from None
        for k, row in enumerate(rows):
            row = {key.strip(): v for key, v in row.items() if key is not None and v not in (None, "")}
            items.append(_row_item(row, base, pairs, spec, f"row {k + 2}"))
    elif suffix in (".jsonl", ".ndjson"):
        from algebra.io.native import check_exponents
        check_exponents(text, spec)              # (s40 forge audit F1b: rows were not limited)
        for k, line in enumerate(text.splitlines()):
            if not line.strip():
                continue
            try:
                row = json.loads(line, parse_float=Decimal,       # exact: 0.1 is 1/10
                                 object_pairs_hook=_no_duplicates)
            except json.JSONDecodeError as exc:
                raise InputError(f"line {k + 1} is not JSON ({exc.msg})", source=spec) from None
            except RecursionError:                # (100 000 '[': exit 4, s48 hostile audit B1)
                raise InputError(f"line {k + 1}: lists or objects nested too deeply", source=spec) from None
            except ValueError as exc:                              # a key given twice
                raise InputError(f"line {k + 1}: {exc}", source=spec) from None
            if isinstance(row, str):
                row = {"model": row}
            if not isinstance(row, dict):
                raise InputError(f"line {k + 1}: expected an object or a path string", source=spec)
            items.append(_row_item(row, base, pairs, spec, f"line {k + 1}"))
    elif suffix in MODEL_SUFFIXES and not pairs:
        items.append(_single(spec))
    else:
        raise InputError("a manifest is a directory, a glob, a .csv or a .jsonl file", source=spec)
    if not items:
        raise InputError("the manifest lists no item", source=spec)
    seen: set = set()
    for it in items:
        if it["id"] in seen:
            raise InputError(f"item {it['id']!r} is listed twice", source=spec)
        seen.add(it["id"])
    return items
