"""The ``--help`` of every subcommand: one paragraph, the exit codes, examples.

``describe(paragraph, exits=..., examples=[...])`` gives the keyword arguments of
``add_parser``: the paragraph wrapped to 78 columns, an epilog listing the exit codes and the
examples, and ``RawDescriptionHelpFormatter`` so that argparse keeps both as written.
``tests/cli/test_help.py`` walks every subcommand of the parser and checks them.
"""

from __future__ import annotations

import argparse
import textwrap

__all__ = ["describe", "EXIT_INPUT", "EXIT_BUG", "TIMEOUT_HELP"]

EXIT_INPUT = "2  input error (bad file, wrong shape, NaN/Inf, bad option value)"
EXIT_BUG = "4  internal error (a bug in netfibers; --debug shows the traceback)"
TIMEOUT_HELP = "stop after SECONDS (partial or undecided answer, exit 3)"


def describe(paragraph: str, *, exits: list[str], examples: list[str]) -> dict:
    """``add_parser`` keyword arguments: description, epilog (exit codes, examples), formatter.

    *exits* lists the command's own codes (``"0  equivalent"``); the input-error line (unless
    given) and the internal-error line are added."""
    desc = textwrap.fill(" ".join(paragraph.split()), width=78, break_on_hyphens=False)
    codes = list(exits)
    if not any(c.startswith("2 ") for c in codes):
        codes.append(EXIT_INPUT)
    codes.append(EXIT_BUG)
    exit_lines = [textwrap.fill(" ".join(c.split()), width=76, initial_indent="  ",
                                subsequent_indent="     ") for c in codes]
    epilog = ("exit codes:\n" + "\n".join(exit_lines)
              + "\n\nexamples:\n" + "\n".join(f"  {e}" for e in examples))
    return {"description": desc, "epilog": epilog,
            "formatter_class": argparse.RawDescriptionHelpFormatter}
