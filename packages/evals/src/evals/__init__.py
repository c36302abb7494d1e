"""An evaluation system for agents: cases, lint, runner, checks, metrics, reports, gate, CLI."""
