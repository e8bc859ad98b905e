"""The tau2 world: pinned task versions, tau2 environments and the fast replay engine."""

# One facade style in every package: the public names are listed in __init__.pyi (which type checkers
# read) and load on first use, so importing a package never imports more than the names it needs.
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
