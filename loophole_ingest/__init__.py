"""Ingest: read ``tau2 run`` results files in every layout tau2 writes, one simulation at a time.

Layouts (see README "Rescoring"): a monolithic JSON object with ``info``, ``tasks`` and ``simulations``
(flat, or ``<run>/results.json``), and the dir layout (``<run>/results.json`` without simulations plus
``simulation_index``, and ``<run>/simulations/<id>.json``). Files are untrusted data: parsed with a strict
JSON decoder (no duplicate keys, no NaN/Infinity, valid UTF-8), streamed so that memory stays bounded, and
validated with tau2's pydantic models. Fields that newer tau2 versions add are ignored; fields older
versions lack take tau2's defaults.

Modules: ``sources`` (finding results files), ``jsonstream`` (strict, streaming JSON), ``runs`` (a run's
header and layout), ``shapes`` (headerless shapes from the wild: a bare list, one simulation; refused forks
and stripped uploads; a run's own tools), ``simulations`` (one simulation's checks); a file's task version is decided by
``envs._detect``."""

# One facade style in every package: the public names are listed in __init__.pyi (which type checkers
# read) and load on first use, so importing a package never imports more than the names it needs.
import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
