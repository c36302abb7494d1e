"""Files the evaluation writes and reads: replaced whole, read defensively."""
