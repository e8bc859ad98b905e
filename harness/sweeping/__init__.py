"""Sweeps on Ray: ``preflight`` (keys, endpoints, the scripted server), ``driver`` (the loop that starts
trials within the limits and writes parts) and ``worker`` (one trial → a ``TrialOutcome``, the Ray actor)."""

# One facade style in every package: the public names are listed in __init__.pyi (which type checkers
# read) and load on first use, so importing a package never imports more than the names it needs.
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
