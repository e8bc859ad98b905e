"""The project's own YAML files (the catalog, the reading vocabulary, the policy fixes), read safely and fast."""

from __future__ import annotations

from typing import Any

import yaml

# libyaml's parser under PyYAML's safe constructor: the same data as ``yaml.safe_load`` (the constructor is the
# same Python class) at a tenth of the parse time, which every process that scores pays once. PyYAML built
# without libyaml falls back to the pure-Python safe loader.
_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_yaml(text: str) -> Any:
    """``text`` as YAML data, with the safe constructor only (no Python object tags)."""
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader (CSafeLoader or SafeLoader)
