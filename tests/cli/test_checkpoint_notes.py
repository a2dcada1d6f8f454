"""Readers: which entry of a training checkpoint was read (session 43)."""

import pytest

from algebra.io import load
from tests.algebra.test_io import assert_net_equals_floats
from tests.algebra.test_io_session42 import save_arrays


def test_a_checkpoint_with_an_ema_copy_says_which_it_read(tmp_path, run):
    """{"model": sd, "ema_model": sd_ema, ...} was read as its "model" without a word, though
    an EMA copy is often the one evaluated (a gap named in session 42's note): the reading says
    which entry it read and which it left, on every command (a ``netfibers: note:`` line)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(2)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    ema = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    path = tmp_path / "ckpt.pt"
    torch.save({"model": model.state_dict(), "ema_model": ema.state_dict(), "epoch": 3,
                "optimizer": torch.optim.SGD(model.parameters(), lr=0.1).state_dict()}, path)
    net = load(path)
    assert_net_equals_floats(net, [(model[0].weight.detach().numpy(), model[0].bias.detach().numpy()),
                                   (model[2].weight.detach().numpy(), model[2].bias.detach().numpy())])
    note = ("a checkpoint: its 'model' entry read; its 'ema_model' (also a state_dict) not read: "
            "save it alone to use it")
    assert note in net.reading_warnings and note in net.provenance
    code, out, err = run("eval", path, "--x", "1,2,3")
    assert code == 0 and err.splitlines() == [f"netfibers: note: {path}: {note}"]
    torch.save({"state_dict": model.state_dict(), "ema": ema.state_dict(), "swa": ema.state_dict()}, path)
    assert ("a checkpoint: its 'state_dict' entry read; its 'ema', 'swa' (also state_dicts) not "
            "read: save one of them alone to use it") in load(path).reading_warnings
    torch.save({"model": model.state_dict(), "epoch": 3}, path)      # one state_dict: no note
    assert load(path).reading_warnings == ()


@pytest.mark.parametrize("fmt", ["pt", "safetensors", "npz"])
def test_a_bare_sequential_of_adjacent_linears_is_refused(tmp_path, run, fmt):
    """nn.Sequential(Linear(3, 5), Linear(5, 2)).state_dict() has keys 0., 1. without a prefix:
    a model that IS a Sequential, no module between its Linears, an affine map; it was read as
    a 3-5-2 ReLU net (another function; gap named in session 42's note).  Refused in one line,
    exit 2, nothing written; the same numbers under a prefix (a ModuleList, activations in its
    forward) and a Sequential with its ReLU module (keys 0., 2.) are read as before."""
    import numpy as np
    rng = np.random.default_rng(4)
    arrays = {"0.weight": rng.standard_normal((5, 3)).astype(np.float32),
              "0.bias": rng.standard_normal(5).astype(np.float32),
              "1.weight": rng.standard_normal((2, 5)).astype(np.float32),
              "1.bias": rng.standard_normal(2).astype(np.float32)}
    path = save_arrays(tmp_path / f"linear.{fmt}", arrays)
    out_json = tmp_path / "out.json"
    code, out, err = run("convert", path, "-o", out_json)
    assert code == 2 and not out_json.exists() and len(err.strip().splitlines()) == 1
    assert str(path) in err and "layers 0, 1 are consecutive modules of an nn.Sequential" in err
    assert "affine map" in err and "layers.0.weight" in err
    np.savez(tmp_path / "modulelist.npz", **{f"layers.{k}": v for k, v in arrays.items()})
    assert load(tmp_path / "modulelist.npz").widths == (3, 5, 2)
    np.savez(tmp_path / "relu.npz", **{k.replace("1.", "2.", 1): v for k, v in arrays.items()})
    assert load(tmp_path / "relu.npz").widths == (3, 5, 2)
    np.savez(tmp_path / "one.npz", **{k: v for k, v in arrays.items() if k.startswith("0.")})
    assert load(tmp_path / "one.npz").widths == (3, 5)             # one layer: nothing between


@pytest.mark.parametrize("fmt", ["pt", "safetensors", "npz"])
def test_layers_in_numbered_blocks_say_what_is_not_stored_between_them(tmp_path, run, fmt):
    """The fc1/fc2 of two transformer layers (OPT's ``model.decoder.layers.N.fc1``) were read
    as one 4-8-4-8-4 ReLU net without a word (s44): a state_dict does not store what a model
    does between its blocks (attention, normalisation, a skip).  The reading says so on every
    command; the network read is still the chain (its values: a ReLU between every two
    layers).  A single block, an nn.Sequential (net.0, net.2) and fc1/fc2 get no such note."""
    import numpy as np
    rng = np.random.default_rng(3)
    r = lambda *s: rng.integers(-3, 4, size=s).astype(np.float32)      # noqa: E731
    arrays = {f"model.decoder.layers.{i}.{n}.{t}": r(*shape)
              for i in (0, 1) for n, shape in (("fc1", (8, 4)), ("fc2", (4, 8)))
              for t in ("weight",)}
    arrays.update({k.replace("weight", "bias"): r(v.shape[0]) for k, v in list(arrays.items())})
    path = save_arrays(tmp_path / f"opt.{fmt}", arrays)
    net = load(path)
    assert net.widths == (4, 8, 4, 8, 4)
    note = [w for w in net.reading_warnings if w.startswith("the layers come in 2 numbered blocks")]
    assert len(note) == 1 and "(model.decoder.layers.0., model.decoder.layers.1.)" in note[0]
    assert "attention in a transformer" in note[0]
    x = [1, -2, 3, 1]                     # the chain read: ReLU between every two layers
    h = np.array(x, dtype=float)
    for l, (i, n) in enumerate([(0, "fc1"), (0, "fc2"), (1, "fc1"), (1, "fc2")]):
        p = f"model.decoder.layers.{i}.{n}."
        h = arrays[p + "weight"].astype(float) @ h + arrays[p + "bias"]
        h = np.maximum(h, 0) if l < 3 else h
    assert [float(v) for v in net.evaluate(x)] == list(h)
    code, out, err = run("eval", path, "--x", "1,-2,3,1")
    assert code == 0 and f"netfibers: note: {path}: {note[0]}" in err.splitlines()
    for keys in (["model.decoder.layers.0.fc1", "model.decoder.layers.0.fc2"],     # one block
                 ["net.0", "net.2"], ["fc1", "fc2"], ["layers.0", "layers.1"]):
        one = {f"{keys[0]}.weight": r(8, 4), f"{keys[1]}.weight": r(3, 8)}
        assert not any("numbered blocks" in w
                       for w in load(save_arrays(tmp_path / f"one.{fmt}", one)).reading_warnings)
    nested = {f"blocks.{i}.{j}.weight": r(4, 4) for i in (0, 1) for j in (0, 2)}   # ModuleList of
    warn = load(save_arrays(tmp_path / f"nested.{fmt}", nested)).reading_warnings  # Sequentials
    assert any(w.startswith("the layers come in 2 numbered blocks of several layers each "
                            "(blocks.0., blocks.1.)") for w in warn)


def test_blocks_under_one_stage_get_the_note_and_a_transformer_file_points_to_blocks(tmp_path):
    """s44 blocks audit F3: ``stages.0.blocks.N.fc1/fc2`` (one stage holding the blocks) got no
    note — the first numbered component has one value, the blocks are one level deeper; F7: a
    full transformer state_dict refused as a network names the block commands for its fc1/fc2."""
    import numpy as np
    from algebra.exceptions import InputError
    r = lambda *s: np.ones(s, dtype=np.float32)      # noqa: E731
    arrays = {f"stages.0.blocks.{i}.mlp.{n}.weight": r(*s) for i in (0, 1)
              for n, s in (("fc1", (8, 4)), ("fc2", (4, 8)))}
    warn = load(save_arrays(tmp_path / "cnx.npz", arrays)).reading_warnings
    assert any(w.startswith("the layers come in 2 numbered blocks of several layers each "
                            "(stages.0.blocks.0., stages.0.blocks.1.)") for w in warn)
    arrays.update({"model.layers.0.self_attn.q_proj.weight": r(4, 4), "embed.weight": r(9, 4)})
    with pytest.raises(InputError, match="its fc1/fc2 \\(or experts. w1/w2/w3\\) as MLP blocks"):
        load(save_arrays(tmp_path / "full.npz", arrays))
