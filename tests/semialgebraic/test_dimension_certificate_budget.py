"""A ``functional_dimension`` certificate under a timeout (``dim --certificate --timeout T``):
the calls no budget stops (the proven directions' rank, the exact rank on listed regions, the
final re-check) are started only when their estimate fits the time left; otherwise the upper
bound is left uncertified with the reason, or the certificate is returned without the builder's
own re-check, and ``report`` says so.  Whatever is written still verifies, with the same lower
bound (16-60-60-8 on a ball of radius 1/100: ``--timeout 5`` ended 4.4 s past its limit, and
``--timeout 60`` re-checked for 50 s, before)."""

import json

from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.dimension import certificate as dc
from semialgebraic.verify import verify
from tests.cli.test_budgets import random_net


def _fd(widths, seed, dom=None):
    net = random_net(widths, seed)
    return net, functional_dimension(net, domain=dom)


def test_without_a_timeout_the_certificate_is_rechecked_and_certifies_the_upper_bound():
    net, fd = _fd([3, 8, 6, 2], 1)
    report: dict = {}
    cert = functional_dimension_certificate(net, fd, report=report)
    assert "unchecked" not in report and report["check"] >= 0
    assert "upper" in cert and cert["lower"] == fd.lower
    assert verify(json.loads(json.dumps(cert)))[0]


def test_a_recheck_past_the_time_left_is_skipped_and_reported(monkeypatch):
    net, fd = _fd([3, 8, 6, 2], 1)
    monkeypatch.setattr(dc, "CHECK_GRACE", 0.0)
    calls = []
    monkeypatch.setattr(dc, "require_valid", lambda *a, **k: calls.append(1))
    thinned = dc._thinned_inputs                          # the re-check estimated far too long
    monkeypatch.setattr(dc, "_thinned_inputs", lambda *a: (thinned(*a)[0], 1e6))
    report: dict = {}
    cert = functional_dimension_certificate(net, fd, seconds=0.5, report=report)
    assert calls == [] and "did not fit the timeout" in report["unchecked"]
    ok, why = verify(json.loads(json.dumps(cert)))      # written unchecked, still valid
    assert ok, why
    assert cert["lower"] == fd.lower


def test_the_upper_bound_is_left_uncertified_when_ranking_the_directions_does_not_fit():
    net, fd = _fd([3, 8, 6, 2], 2)
    fd.details["directions_seconds"] = 1e6                # the run's rank of the directions
    cert = functional_dimension_certificate(net, fd, seconds=5.0)
    assert "upper" not in cert or cert.get("upper") is None
    assert "ranking the proven directions" in cert["uncertified_upper_reason"]
    ok, why = verify(json.loads(json.dumps(cert)))
    assert ok and "not certified" in why and cert["lower"] == fd.lower
    fd.details["directions_seconds"] = 0.0                # fits: certified as without a timeout
    cert = functional_dimension_certificate(net, fd, seconds=60.0)
    assert cert.get("upper") == fd.upper and verify(json.loads(json.dumps(cert)))[0]


def test_the_regions_route_beside_the_directions_is_written_unchecked_when_its_rank_does_not_fit(monkeypatch):
    """A complete walk ranked beside the directions (test_dimension_beside's balls): the
    certificate lists the regions; with their exact rank estimated past the time left the
    builder does not re-check it, says so, and the certificate verifies on its own."""
    import semialgebraic.dimension.functional as fmod
    from algebra.kernel import box_input_map, compose_input_map
    from semialgebraic.dimension.certificate import box_certificate
    from tests.semialgebraic.test_dimension_beside import _ball_case
    monkeypatch.setattr(fmod, "EXACT_LIMIT_COMPLETE", 0)
    monkeypatch.setattr(fmod, "EXACT_LIMIT", 0)
    monkeypatch.setattr(dc, "EXACT_CHECK_RATE", 1e-3)
    monkeypatch.setattr(dc, "CHECK_GRACE", 0.0)
    tried = 0
    for seed in range(8):
        net, lo, hi = _ball_case(seed)
        fd = functional_dimension(compose_input_map(net, *box_input_map(lo, hi)), domain=(Q(-1), Q(1)))
        if not (fd.exact and fd.details.get("rank_beside")):
            continue
        tried += 1
        report: dict = {}
        cert = json.loads(json.dumps(box_certificate(net, lo, hi, fd, seconds=30.0, report=report)))
        assert "upper_regions" in cert and "did not fit" in report["unchecked"]
        assert cert["upper"] == cert["lower"] == fd.value and verify(cert)[0]
    assert tried >= 2


def test_dim_writes_no_certificate_when_no_input_was_sampled(tmp_path, monkeypatch, capsys):
    """A budget spent before any input was sampled (the walk and the directions took it: a
    16-60-60-8 ball at --timeout 3) leaves lower 0; a certificate without an input would be
    BROKEN for verify, so none is written and dim says why."""
    import dataclasses
    import semialgebraic.commands.general as G
    from semialgebraic.cli import main
    net = random_net([3, 8, 6, 2], 1)
    path = tmp_path / "n.json"
    path.write_text(json.dumps(net.to_dict()))
    real = G.functional_dimension
    monkeypatch.setattr(G, "functional_dimension",
                        lambda *a, **k: dataclasses.replace(real(*a, **k), lower=0, samples=0, inputs=()))
    cert = tmp_path / "c.json"
    assert main(["dim", str(path), "--timeout", "5", "--certificate", str(cert)]) == 3
    assert "no certificate written: no input was sampled" in capsys.readouterr().out
    assert not cert.exists()


def test_the_regions_route_after_the_directions_is_not_started_when_its_rank_does_not_fit(monkeypatch):
    """A complete walk whose upper bound the directions do not reach (forced here): the regions'
    exact rank (run by the builder's check and again by the re-check, neither stoppable) is
    estimated first; past the time left the upper bound is left uncertified with that reason,
    and without a timeout the regions are listed and verify."""
    from algebra.kernel import box_input_map, compose_input_map
    from tests.semialgebraic.test_dimension_beside import _ball_case
    for seed in range(8):
        net, lo, hi = _ball_case(seed)
        cube = compose_input_map(net, *box_input_map(lo, hi))
        fd = functional_dimension(cube, domain=(Q(-1), Q(1)))
        if fd.exact and fd.complete_regions:
            break
    assert fd.exact and fd.complete_regions
    fd.details["rank_beside"] = False                     # the directions route first
    monkeypatch.setattr(dc._UpperEntries, "run", lambda self: ([], cube.n_parameters, []))
    monkeypatch.setattr(dc, "EXACT_CHECK_RATE", 1e-3)
    cert = functional_dimension_certificate(cube, fd, domain=(Q(-1), Q(1)), seconds=30.0)
    assert "does not fit the time left" in cert["uncertified_upper_reason"]
    assert verify(json.loads(json.dumps(cert)))[0]
    cert = functional_dimension_certificate(cube, fd, domain=(Q(-1), Q(1)))
    assert "upper_regions" in cert and cert["upper"] == fd.value
    assert verify(json.loads(json.dumps(cert)))[0]


def test_the_certificates_deadline_starts_before_its_inputs_are_thinned(monkeypatch):
    """The certificate's time runs from its start: thinning the inputs (7.9 s on a 16-60-60-8
    ball) had been left out of it, so ``dim --timeout 70 --certificate`` searched proofs until
    78 s.  Here the thinning takes all the time: nothing else is started, the upper bound is left
    uncertified, and the certificate still verifies."""
    import types
    net, fd = _fd([3, 8, 6, 2], 2)
    now = [0.0]
    monkeypatch.setattr(dc, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    thinned = dc._thinned_inputs

    def slow(*a):
        out = thinned(*a)
        now[0] += 100.0                                    # the thinning outlasts the timeout
        return out

    monkeypatch.setattr(dc, "_thinned_inputs", slow)
    cert = functional_dimension_certificate(net, fd, seconds=5.0)
    assert cert.get("upper") is None and cert["lower"] == fd.lower
    ok, why = verify(json.loads(json.dumps(cert)))
    assert ok and "not certified" in why


def test_the_pattern_facts_are_not_checked_past_the_time_left():
    """The facts of a complete pattern list each end in a check of all the directions (one call
    no budget stops, as long as the last one): when it would end past the deadline they are left
    out, the bound claimed stays the last one checked, and the certificate says why."""
    import time
    net, fd = _fd([2, 5, 4, 1], 3, (Q(-1), Q(1)))
    patterns = fd.details.get("patterns")
    assert patterns                                       # a complete walk
    e = dc._UpperEntries(net, fd, (Q(-1), Q(1)), time.monotonic() + 5.0, dc.CERTIFICATE_LPS)
    b = e.bound()
    e.check_seconds = 60.0                                # the next check would end past it
    assert not e.fits()
    assert e.pattern_facts(patterns) == b == e.last_bound
    assert any("does not fit the time left" in m for m in e.missing)
    assert dc._UpperEntries(net, fd, (Q(-1), Q(1)), None, dc.CERTIFICATE_LPS).fits()


def test_the_one_hidden_layer_theorem_certificate_recheck_stops_at_the_time_given(monkeypatch):
    """R38's certificate (one hidden layer) was re-checked whole whatever the time left: a
    768-3072-768 block's answer came at 1.5 s and its re-check took 10.8 s more (``dim --timeout
    2 --certificate``: 12 s; s43 budgets audit F3).  The re-check stops at the time given (or a
    Ctrl-C); the certificate is returned unchecked, said in ``report``, and still verifies."""
    import time
    net, fd = _fd([10, 200, 2], 2)                                   # > ONE_LAYER_FROM parameters
    assert fd.details.get("theorem") == "R38"
    real = dc._verify

    def slow(cert):
        end = time.monotonic() + 30
        while time.monotonic() < end:
            sum(range(1000))
        return real(cert)
    monkeypatch.setattr(dc, "_verify", slow)
    report: dict = {}
    t = time.monotonic()
    cert = functional_dimension_certificate(net, fd, seconds=0.2, report=report)
    assert time.monotonic() - t < 0.2 + dc.CHECK_GRACE + 1.5
    assert report["unchecked"] == "its re-check (a loop over the neurons) was stopped at the timeout"
    monkeypatch.setattr(dc, "_verify", real)
    assert verify(json.loads(json.dumps(cert)))[0] and cert["value"] == fd.value
    report = {}
    functional_dimension_certificate(net, fd, seconds=30, report=report)      # time enough
    assert "unchecked" not in report
