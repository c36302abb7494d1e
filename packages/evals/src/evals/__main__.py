"""``python -m evals``: the same as the ``evals`` command."""

from evals.cli.main import main

raise SystemExit(main())
