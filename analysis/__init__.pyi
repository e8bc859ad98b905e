"""Numbers and tables from the Parquet store (read through ``loophole_store``): pure functions on DataFrames."""

from ._audit_golds import (
    CONFLICTS_SCHEMA,
    GOLDS_SCHEMA,
    GoldsAudit,
    audit_golds,
    version_conflicts,
)
from ._audit_policy import (
    PAPER_PROFILE,
    llm_audit,
    split_clauses,
    structural_profile,
)
from ._audit_traces import (
    audit_traces,
)
from ._bundle import (
    ANALYZE_MADE_BY,
    AnalysisBundle,
    analyze_trials,
    write_tables,
)
from ._contract import (
    BAND_POINTS,
    band4,
    band4_by_agent,
    band_points,
    contract_marks,
    do_nothing_tasks,
)
from ._leaderboard import (
    leaderboard_table,
    leaderboard_trials,
    load_manifest,
    to_markdown,
)
from ._stats import (
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
    task_clusters,
    variance_by_agent,
    version_comparison,
)
from ._tables import (
    band,
    band_by_agent,
    loophole_mask,
    loophole_task_table,
    success_by_agent,
    upper_reward,
    with_upper,
)
from ._versions import (
    against_mask,
    moves_across_versions,
    native,
    ranks_across_versions,
)

__all__ = [
    "ANALYZE_MADE_BY",
    "band4",
    "BAND_POINTS",
    "band_points",
    "band4_by_agent",
    "contract_marks",
    "do_nothing_tasks",
    "audit_golds",
    "CONFLICTS_SCHEMA",
    "GOLDS_SCHEMA",
    "GoldsAudit",
    "version_conflicts",
    "against_mask",
    "AnalysisBundle",
    "analyze_trials",
    "audit_traces",
    "band",
    "band_by_agent",
    "bootstrap_ci",
    "cell_variance",
    "cluster_bootstrap",
    "counterfactual",
    "cross_version_moves",
    "leaderboard_table",
    "leaderboard_trials",
    "llm_audit",
    "load_manifest",
    "loophole_gap",
    "loophole_mask",
    "loophole_task_table",
    "model_split",
    "moves_across_versions",
    "native",
    "overlap_test",
    "PAPER_PROFILE",
    "pass_k",
    "ranks_across_versions",
    "reading_choices",
    "split_clauses",
    "structural_profile",
    "success_by_agent",
    "task_clusters",
    "to_markdown",
    "upper_reward",
    "variance_by_agent",
    "version_comparison",
    "with_upper",
    "write_tables",
]
