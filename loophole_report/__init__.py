"""The HTML for readers: the run report and the static trial viewer."""
