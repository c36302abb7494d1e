"""Reports: console, Markdown, JSON, JUnit and HTML, and the comparison of two runs."""
