"""What a weight file does not show, said (new-user audit).  Files without some biases (torch
``Linear(bias=False)``, an ONNX MatMul without Add): read as bias 0, and the commands that count
parameters say that their counts are those of the architecture with biases (a bias-free torch
model of 15 parameters was given "functional dimension 16 of 21 parameters" without a word);
pruning masks, quantised and int8 files, residual blocks."""

from __future__ import annotations

import numpy as np
import pytest

from algebra.io import load
from algebra.rationals import Q

W1 = np.array([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25], [2.0, 1.0], [-0.5, -1.5]], dtype=np.float32)
W2 = np.array([[1.0, -1.0, 2.0, 0.5, -0.25]], dtype=np.float32)


@pytest.fixture
def bias_free(tmp_path):
    p = tmp_path / "nobias.npz"
    np.savez(p, **{"0.weight": W1, "2.weight": W2})
    return p


def test_the_reader_marks_the_missing_biases(bias_free, tmp_path):
    net = load(bias_free)
    assert net.missing_biases == (0, 1) and net.n_parameters == 21
    assert all(v == 0 for b in net.biases for v in b)
    assert "no bias stored for layers 1, 2: read as 0" in net.provenance
    mixed = tmp_path / "mixed.npz"
    np.savez(mixed, **{"0.weight": W1, "0.bias": np.ones(5, np.float32), "2.weight": W2})
    assert load(mixed).missing_biases == (1,)
    full = tmp_path / "full.npz"
    np.savez(full, **{"0.weight": W1, "0.bias": np.ones(5, np.float32), "2.weight": W2,
                      "2.bias": np.zeros(1, np.float32)})
    assert load(full).missing_biases == () and list(load(full).biases[1]) == [Q(0)]


@pytest.mark.parametrize("command", ["dim", "fiber", "conserved", "identify", "symmetries", "analyze"])
def test_commands_that_count_parameters_say_so(run, bias_free, command):
    code, out, err = run(command, bias_free, "--timeout", "30")
    assert code in (0, 1, 3), err
    assert "stores no bias for layers 1, 2: read as 0 and counted as free parameters" in err
    assert "the 21 parameters are those of the architecture with biases (without them: 15" in err


def test_info_lists_them_and_equiv_says_nothing(run, bias_free):
    code, out, err = run("info", bias_free)
    assert code == 0 and "no bias stored for layers 1, 2: read as 0" in out
    code, out, err = run("equiv", bias_free, bias_free)
    assert code == 0 and "no bias" not in err          # the function is the same either way


def test_a_torch_sequential_without_biases():
    torch = pytest.importorskip("torch")
    from algebra.network import Network
    m = torch.nn.Sequential(torch.nn.Linear(2, 3, bias=False), torch.nn.ReLU(), torch.nn.Linear(3, 2),
                            torch.nn.ReLU(), torch.nn.Linear(2, 1, bias=False))
    assert Network.from_torch(m).missing_biases == (0, 2)
    bn = torch.nn.Sequential(torch.nn.Linear(2, 3, bias=False), torch.nn.BatchNorm1d(3), torch.nn.ReLU(),
                             torch.nn.Linear(3, 1))
    bn.eval()
    assert Network.from_torch(bn).missing_biases == ()      # BatchNorm's shift is its bias


def test_common_torch_artefacts_are_read_or_named(tmp_path, run):
    """New-user audit: a pruned model saved before prune.remove is read as the pruned model
    (weight = weight_orig * weight_mask, exactly); a quantised state_dict and a JSON dump of a
    state_dict get a message saying what to do, exit 2."""
    torch = pytest.importorskip("torch")
    import torch.nn.utils.prune as prune
    from algebra.network import Network
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    prune.l1_unstructured(m[0], "weight", amount=0.5)
    torch.save(m.state_dict(), tmp_path / "masks.pt")
    masked = load(tmp_path / "masks.pt")
    prune.remove(m[0], "weight")
    assert masked == Network.from_torch(m)
    assert any("prune masks applied exactly" in s for s in masked.provenance)
    q = torch.ao.quantization.quantize_dynamic(
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)),
        {torch.nn.Linear}, dtype=torch.qint8)
    torch.save(q.state_dict(), tmp_path / "q.pt")
    code, _, err = run("info", tmp_path / "q.pt")
    assert code == 2 and "a quantised state_dict" in err and "dequantise" in err
    import json
    (tmp_path / "sd.json").write_text(json.dumps({k: v.tolist() for k, v in m.state_dict().items()}))
    code, _, err = run("info", tmp_path / "sd.json")
    assert code == 2 and "a JSON dump of a state_dict" in err and len(err.splitlines()) == 1


def test_what_a_state_dict_cannot_show_is_noted(tmp_path, run):
    """int8 tensors (codes without their scales?) and a one-hidden-layer R^d -> R^d map under
    MLP-block names (a residual skip is not in a state_dict): a line in info, a note on stderr
    from the commands that analyse the net (new-user audit); none for a plain float file."""
    rng = np.random.default_rng(0)
    fc = {"fc1.weight": rng.standard_normal((6, 3)).astype(np.float32),
          "fc1.bias": rng.standard_normal(6).astype(np.float32),
          "fc2.weight": rng.standard_normal((3, 6)).astype(np.float32),
          "fc2.bias": rng.standard_normal(3).astype(np.float32)}
    np.savez(tmp_path / "block.npz", **fc)
    code, out, _ = run("info", tmp_path / "block.npz")
    assert code == 0 and "that skip is not in a state_dict" in out
    code, _, err = run("dim", tmp_path / "block.npz", "--timeout", "20")
    assert "netfibers absorb FILE --activation relu" in err
    ints = {"0.weight": rng.integers(-100, 100, (4, 3)).astype(np.int8),
            "2.weight": rng.integers(-100, 100, (2, 4)).astype(np.int8)}
    np.savez(tmp_path / "q.npz", **ints)
    code, out, _ = run("info", tmp_path / "q.npz")
    assert code == 0 and "int8 tensors read as the integers stored" in out
    np.savez(tmp_path / "plain.npz", **{"0.weight": W1, "0.bias": np.ones(5, np.float32),
                                        "2.weight": W2, "2.bias": np.ones(1, np.float32)})
    code, out, err = run("dim", tmp_path / "plain.npz", "--timeout", "20")
    assert "note" not in err


def test_square_layers_under_w_names_say_the_layout_is_a_guess(tmp_path, run):
    """All-square weights named W1, W2: (out, in) is read and (in, out) fits too, which info now
    says (a numpy model written as x @ W1 would be transposed silently: new-user audit); torch
    .weight names are (out, in) by definition and say nothing more."""
    rng = np.random.default_rng(1)
    sq = {"W1": rng.standard_normal((3, 3)).astype(np.float32), "W2": rng.standard_normal((3, 3)).astype(np.float32)}
    np.savez(tmp_path / "sq.npz", **sq)
    code, out, _ = run("info", tmp_path / "sq.npz")
    assert code == 0 and "(in, out) fits the shapes too" in out
    np.savez(tmp_path / "t.npz", **{"0.weight": sq["W1"], "2.weight": sq["W2"]})
    code, out, _ = run("info", tmp_path / "t.npz")
    assert code == 0 and "fits the shapes too" not in out
