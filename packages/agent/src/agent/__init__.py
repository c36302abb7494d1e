"""The SupportPilot agent loop: bus, specialist contracts, rule and OpenAI brains, orchestrator, SUT adapter."""
