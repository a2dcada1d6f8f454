"""Every subcommand's --help (walked from the parser, so a new command is covered): a paragraph,
exit codes, examples that parse; no reStructuredText, no cut sentences; consistent names."""

import argparse
import shlex

import pytest

from algebra.activations import supported_activations
from semialgebraic.cli import _join_negative_values, build_parser

PARSER = build_parser()
SUB = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction))
COMMANDS = sorted(SUB.choices)
POSITIONALS = {"NET", "A", "B", "BLOCK", "CERT", "STEPS", "TERM", "KIND", "JOB", "MANIFEST", "WHAT"}


def test_every_command_module_registered():
    assert {"convert", "info", "eval", "regions", "canon", "apply", "verify", "identify", "fiber",
            "symmetries", "absorb", "conserved", "equiv", "diff", "dim", "analyze",
            "explain"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_help_has_paragraph_exit_codes_and_examples(name):
    p = SUB.choices[name]
    text = p.format_help()
    desc = p.description or ""
    assert len(desc.split()) >= 12, name                       # one real paragraph
    assert "\n\n" not in desc.strip() and desc.rstrip().endswith("."), name   # not cut off
    for bad in ("``", ":func:", ":class:", "Command ", "Parameters\n", "-----", ".. "):
        assert bad not in text, (name, bad)
    assert isinstance(p.formatter_class, type) and \
        issubclass(p.formatter_class, argparse.RawDescriptionHelpFormatter)
    epilog = p.epilog or ""
    assert epilog.startswith("exit codes:\n"), name
    codes = [line.split()[0] for line in epilog.split("\n\nexamples:\n")[0].splitlines()[1:]
             if line.startswith("  ") and not line.startswith("     ")]
    assert "0" in codes and "2" in codes and "4" in codes, (name, codes)
    examples = [line.strip() for line in epilog.split("\n\nexamples:\n")[1].splitlines()]
    assert examples and all(e.startswith(f"netfibers {name}") for e in examples), name
    for e in examples:             # every example is a valid command line
        args = PARSER.parse_args(_join_negative_values(shlex.split(e)[1:]))
        assert args.command == name


@pytest.mark.parametrize("name", COMMANDS)
def test_names_are_consistent(name):
    p = SUB.choices[name]
    for a in p._actions:
        if not a.option_strings and a.dest != "help":
            assert (a.metavar or a.dest) in POSITIONALS, (name, a.dest, a.metavar)
        if "--timeout" in a.option_strings:
            assert a.metavar == "SECONDS", name
        if a.option_strings and a.help and a.help != argparse.SUPPRESS:
            assert not a.help.rstrip().endswith(":"), (name, a.option_strings)


def test_absorb_activation_lists_every_choice():
    p = SUB.choices["absorb"]
    act = next(a for a in p._actions if "--activation" in a.option_strings)
    for name in supported_activations():
        assert name in act.help, name
    assert "gelu_tanh" in act.help


def test_analyze_help_not_cut_and_canon_help_without_docstrings():
    assert not SUB.choices["analyze"].description.rstrip().endswith(":")
    text = SUB.choices["canon"].format_help()
    assert "apply" not in text.split("exit codes:")[0] and "verify CERT" not in text


def test_global_exact_flag_before_or_after_the_command():
    assert PARSER.parse_args(["--exact", "info", "n.json"]).exact_global is True
    assert PARSER.parse_args(["info", "n.json", "--exact"]).exact is True
