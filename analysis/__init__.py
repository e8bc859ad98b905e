"""Numbers and tables from the Parquet store (read through ``loophole_store``): pure functions on DataFrames."""

from analysis._bundle import AnalysisBundle, analyze_trials, write_tables
from analysis._stats import (
    bootstrap_ci,
    cell_variance,
    cluster_bootstrap,
    counterfactual,
    cross_version_moves,
    loophole_gap,
    model_split,
    overlap_test,
    pass_k,
    reading_choices,
    variance_by_agent,
    version_comparison,
)
from analysis._tables import (
    band,
    band_by_agent,
    loophole_mask,
    loophole_task_table,
    success_by_agent,
    upper_reward,
    with_upper,
)
from analysis._versions import against_mask, moves_across_versions, native, ranks_across_versions

__all__ = [
    "against_mask",
    "moves_across_versions",
    "native",
    "ranks_across_versions",
    "band",
    "band_by_agent",
    "bootstrap_ci",
    "cluster_bootstrap",
    "AnalysisBundle",
    "analyze_trials",
    "write_tables",
    "cell_variance",
    "counterfactual",
    "cross_version_moves",
    "loophole_gap",
    "loophole_mask",
    "loophole_task_table",
    "model_split",
    "overlap_test",
    "pass_k",
    "reading_choices",
    "success_by_agent",
    "upper_reward",
    "with_upper",
    "variance_by_agent",
    "version_comparison",
]
