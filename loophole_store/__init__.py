"""The run directory: its Parquet schemas, tables, parts and compaction, run-directory checks, provenance
(``run.json``) and atomic files. The only code that knows a run's files; analysis reads runs through it."""

# One facade style in every package: the public names are listed in __init__.pyi (which type checkers
# read) and load on first use, so importing a package never imports more than the names it needs.
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
