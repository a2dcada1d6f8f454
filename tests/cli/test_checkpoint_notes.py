"""Readers: which entry of a training checkpoint was read (session 43)."""

import pytest

from algebra.io import load
from tests.algebra.test_io import assert_net_equals_floats


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
