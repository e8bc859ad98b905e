"""The ``harness`` command line: one module per verb, assembled in ``main``."""
