"""The records that flow through an evaluation: the case, the run, the graded result,
and the SUT protocol between them."""
