"""Reading a conversation: normalised text, speech acts (requests, declines, offers, confirmations), claims of
fact and the vocabulary they are read with, gathered in one record. What counts as correct is gold_variants'."""

# One facade style in every package: the public names are listed in __init__.pyi (which type checkers
# read) and load on first use, so importing a package never imports more than the names it needs.
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
