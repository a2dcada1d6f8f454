"""A bounded sample of :mod:`tests.fuzz.odd_nets`: valid odd networks through the commands,
answered or refused in one line, never a crash in disguise; certificates verify."""

import pytest

from tests.fuzz.odd_nets import check_net, odd_nets


@pytest.mark.parametrize("name", ["affine", "all_zero", "dead_layer", "dead_first_Rd", "identity"])
def test_odd_net_is_answered_or_refused_in_one_line(name, tmp_path):
    assert check_net(name, odd_nets(0)[name], tmp_path, quick=True) == []
