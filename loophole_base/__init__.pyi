"""The bottom of the layers: the project's one-line errors and its one atomic writer, which every stage
uses and which import nothing of the project."""

from ._atomic import (
    OUTPUT_MANIFEST,
    atomic_folder,
    atomic_place,
    atomic_write,
    atomic_write_bytes,
    atomic_write_table,
    atomic_write_text,
    check_replaceable,
)
from ._errors import (
    DiskFull,
    HarnessError,
    HarnessInputError,
    cut,
    shown,
)
from ._gc import (
    gc_paused,
)
from ._number_token import (
    number_token_before,
)
from ._order import (
    natural_key,
)
from ._yaml import (
    safe_yaml,
)

__all__ = [
    "atomic_folder",
    "atomic_place",
    "atomic_write",
    "atomic_write_bytes",
    "atomic_write_table",
    "atomic_write_text",
    "check_replaceable",
    "cut",
    "DiskFull",
    "gc_paused",
    "HarnessError",
    "HarnessInputError",
    "natural_key",
    "number_token_before",
    "OUTPUT_MANIFEST",
    "safe_yaml",
    "shown",
]
