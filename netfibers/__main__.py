"""``python -m netfibers``: the ``netfibers`` command (:func:`netfibers.cli.main`)."""

import sys

from netfibers.cli import main

sys.exit(main())
