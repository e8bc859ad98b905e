"""The application layer: one function per verb (rescore, leaderboard, analyze, report, view, sweep) that
takes typed options, checks them and does the work, and returns a typed result. The CLI verbs parse
arguments and print these results; the Python API (``harness.rescore`` ...) is these same functions."""
