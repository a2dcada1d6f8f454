"""Issue 16 (second round), item 4: the native JSON reader keeps decimal weights (``0.1234``) as
exact integer arrays ``N / 10^k`` per layer; the network equals the one parsed entry by entry
(Fraction oracle), and anything outside the fast path (strings, > 18 digits, beyond int64,
ragged rows) falls back to the general parser with the same result or error."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, read_json_text

np = pytest.importorskip("numpy")


def _load(tmp_path, text):
    p = tmp_path / "n.json"
    p.write_text(text)
    return network_from_dict(read_json_text(p), str(p))


def _fractions(net):
    return [[[Fraction(int(x.p), int(x.q)) for x in r] for r in W.to_rows()] for W in net.weights]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(-10 ** 9, 10 ** 9), st.integers(0, 9)),
                         min_size=3, max_size=3), min_size=1, max_size=4),
       st.booleans())
def test_decimal_layers_are_integer_arrays_equal_to_the_oracle(tmp_path_factory, rows, ints):
    tmp_path = tmp_path_factory.mktemp("dec")
    text_rows = []
    oracle = []
    for r in rows:
        tr, orow = [], []
        for j, (n, e) in enumerate(r):
            if ints and j == 0:
                tr.append(str(n))                       # a JSON integer among the decimals
                orow.append(Fraction(n))
            else:
                lit = str(Decimal(n).scaleb(-e)) if e else f"{n}.0"
                tr.append(lit)
                orow.append(Fraction(Decimal(lit)))
        text_rows.append("[" + ", ".join(tr) + "]")
        oracle.append(orow)
    text = ('{"layers": [{"weight": [' + ", ".join(text_rows) + ']}, {"weight": [' +
            ", ".join(["1"] * len(rows)).join("[]") + "]}]}")
    net = _load(tmp_path, text)
    hint = net.integer_weights(0)                       # columns 1, 2 are always decimals
    assert hint is not None and hint[0].dtype == np.int64
    k = max(e if e else 1 for r in rows for j, (_, e) in enumerate(r) if j or not ints)
    assert hint[1] == 10 ** k                           # "n.0" has one fractional digit
    assert _fractions(net)[0] == oracle


def test_fast_path_equals_general_parser(tmp_path):
    rng = np.random.default_rng(5)
    W = rng.integers(-9999, 10000, (6, 5))
    text = json.dumps({"layers": [{"weight": [[f"{x / 1e4:.4f}" for x in r] for r in W.tolist()],
                                   "bias": ["0.5"] * 6},
                                  {"weight": [[1] * 6]}]})
    as_strings = _load(tmp_path, text)                  # strings: the general parser
    as_decimals = _load(tmp_path, text.replace('"', "§").replace("§layers§", '"layers"')
                        .replace("§weight§", '"weight"').replace("§bias§", '"bias"')
                        .replace("§", '"'))             # bias strings stay strings
    fast = _load(tmp_path, json.dumps({"layers": [{"weight": [[float(f"{x / 1e4:.4f}") for x in r]
                                                              for r in W.tolist()],
                                                   "bias": ["0.5"] * 6},
                                                  {"weight": [[1] * 6]}]}))
    assert as_strings.integer_weights(0) is None
    N, D = fast.integer_weights(0)
    assert D == 10 ** 4 and (N == W).all()
    assert fast == as_strings == as_decimals
    assert _fractions(fast) == _fractions(as_strings)


@pytest.mark.parametrize("weight, arrays", [
    ("[[1e-30, 0.5]]", False),                          # 30 fractional digits: > 18
    ("[[12345678901234567890.5, 0.5]]", False),         # beyond int64
    ("[[0.25, \"1/3\"]]", False),                       # a string: general parser
    ("[[1.5E+3, -0.0]]", True),                         # exponent form and negative zero
])
def test_fallbacks_give_the_exact_value(tmp_path, weight, arrays):
    net = _load(tmp_path, '{"layers": [{"weight": ' + weight + '}, {"weight": [[1]]}]}')
    assert (net.integer_weights(0) is not None) is arrays
    lits = json.loads(weight, parse_float=Decimal)
    expect = [Fraction(x) if not isinstance(x, str) else Fraction(x) for x in lits[0]]
    assert _fractions(net)[0] == [expect]


def test_errors_unchanged(tmp_path):
    with pytest.raises(InputError, match="row 1 has 1 entries"):
        _load(tmp_path, '{"layers": [{"weight": [[0.5, 0.25], [0.5]]}, {"weight": [[1, 1]]}]}')
    with pytest.raises(InputError, match="expected 2 entries"):
        _load(tmp_path, '{"layers": [{"weight": [[0.5], [0.25]], "bias": [0.1]}, {"weight": [[1, 1]]}]}')
    with pytest.raises(InputError, match="columns|expected 3"):
        _load(tmp_path, '{"inputs": 3, "layers": [{"weight": [[0.5, 0.25]]}, {"weight": [[1]]}]}')
