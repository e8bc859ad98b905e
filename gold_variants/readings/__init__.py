"""Clause-level readings; importing this package registers every rule."""

from gold_variants.readings import compensation, composition, rebooking, reports, retail  # noqa: F401
from gold_variants.readings._base import RULES, TaskContext

__all__ = ["RULES", "TaskContext"]
