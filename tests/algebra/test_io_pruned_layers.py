"""A hidden layer without neurons (a fully pruned layer) survives the native JSON round trip
thanks to the optional top-level ``inputs`` width; malformed variants are one-line errors."""

import json

import pytest

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.linalg import QMatrix
from algebra.network import Network


def test_pruned_layer_round_trip():
    net = Network([QMatrix.zeros(0, 2), QMatrix.zeros(1, 0)], [[], ["1/3"]])
    data = json.loads(json.dumps(net.to_dict()))
    assert data["inputs"] == 2 and data["layers"][0]["weight"] == []
    back = network_from_dict(data)
    assert back == net and back.widths == (2, 0, 1) and back([5, -7]) == net([5, -7])


def test_pruned_middle_layer_round_trip():
    net = Network([QMatrix.from_rows([[1, 2]]), QMatrix.zeros(0, 1), QMatrix.zeros(2, 0)],
                  [[1], [], [3, "-1/2"]])
    back = network_from_dict(json.loads(json.dumps(net.to_dict())))
    assert back == net and back.widths == (2, 1, 0, 2)


@pytest.mark.parametrize("data, problem", [
    ({"layers": [{"weight": []}, {"weight": [[]]}]}, "give 'inputs'"),
    ({"inputs": 2, "layers": [{"weight": [[1, 2]]}, {"weight": []}]}, "output layer needs rows"),
    ({"inputs": 0, "layers": [{"weight": [[1]]}]}, "'inputs' must be a positive integer"),
    ({"inputs": True, "layers": [{"weight": [[1]]}]}, "'inputs' must be a positive integer"),
    ({"inputs": 3, "layers": [{"weight": [[1, 2]]}]}, "expected 3"),
    ({"layers": [{"weight": [[1]]}, {"weight": [[]]}]}, "0 entries, expected 1"),
])
def test_malformed_pruned_layers(data, problem):
    with pytest.raises(InputError) as info:
        network_from_dict(data)
    assert problem in str(info.value)
