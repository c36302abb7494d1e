"""LLM-as-judge for support replies, with calibration against human labels."""
