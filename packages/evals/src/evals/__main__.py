"""``python -m evals``: the same as the ``evals`` command."""

from evals.cli import main

raise SystemExit(main())
