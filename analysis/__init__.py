"""Numbers and tables from the Parquet store (read through ``harness.store``)."""

from analysis._tables import loophole_mask, loophole_task_table, success_by_agent

__all__ = ["loophole_mask", "loophole_task_table", "success_by_agent"]
