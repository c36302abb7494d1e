"""A fake OpenAI-compatible HTTP server on 127.0.0.1 for tests and benchmarks."""
