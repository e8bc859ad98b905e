"""The policy of each domain as computation over its database at a moment: verdicts with the clause they apply,
and the figures (fares, refunds, compensation, bags, price differences) tau2's tools compute."""

# One facade style in every package: the public names are listed in __init__.pyi (which type checkers
# read) and load on first use, so importing a package never imports more than the names it needs.
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
