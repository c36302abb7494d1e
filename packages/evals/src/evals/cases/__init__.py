"""Case sets: reading and validating case files, a project's vocabulary, lint,
configuration cases, generated suites and the search for disagreements."""
