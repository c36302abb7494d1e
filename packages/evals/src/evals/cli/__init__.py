"""The ``evals`` command line: flags into the library's calls."""
