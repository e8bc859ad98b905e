"""What counts as correct: the loophole catalog (data) and clause-level readings (code)."""

# The facade loads each submodule on first use (names in __init__.pyi, which type checkers read), so
# importing one light submodule, or a package above that needs one name, does not import tau2.
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
