"""Running cases on a system under test: the runner, its backends (in-process, process
pool, Ray), signals, progress, resume."""
