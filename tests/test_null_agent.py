"""The null agent (no LLM, no tool call, a goodbye), swept like any agent on embedded Ray with the scripted
user: its single-gold verdicts equal ``audit golds``'s do-nothing verdicts, task by task."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from analysis import audit_golds
from harness.config import AgentSpec
from loophole_store import open_run
from tests.conftest import ROOT, harness

TASKS = ["0", "2", "10", "12", "18", "24", "45"]  # passes and fails on each version; retail 12/18: broken golds
VERSIONS = ["tau2", "tau3", "verified"]


@pytest.fixture(scope="module")
def null_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("null")
    config = yaml.safe_load((ROOT / "configs" / "null-agent.yaml").read_text())
    assert config["domains"] == ["airline", "retail"] and config["task_versions"] == VERSIONS
    config.update(tasks=TASKS, output=str(tmp / "run"), max_concurrency=2)
    (tmp / "null.yaml").write_text(yaml.safe_dump(config))
    proc = harness("sweep", str(tmp / "null.yaml"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return open_run(tmp / "run")


def test_null_agent_calls_no_tool_and_user_stops(null_run):
    trials = null_run.trials
    assert len(trials) == len(VERSIONS) * 2 * len(TASKS)
    assert set(trials.agent_implementation) == {"null_agent"}
    assert not trials.messages_json.str.contains('"tool_calls": \\[\\{', regex=True).any()
    assert set(trials.termination_reason) == {"user_stop"}
    # 0% strict on every version and domain; null only on a broken gold's task (marked), or where the
    # single gold itself waits for a judge (τ³ retail 24)
    assert trials.strict_reward.fillna(0.0).eq(0.0).all()
    unknown = trials[trials.strict_reward.isna()]
    broken = unknown[unknown.strict_reason.str.startswith("broken gold")]
    assert set(zip(broken.task_version, broken.domain, broken.task_id, strict=True)) == {
        ("tau2", "retail", "12"), ("verified", "retail", "18")}
    judge = unknown.drop(broken.index)
    assert set(zip(judge.task_version, judge.task_id, strict=True)) == {("tau3", "24")} and judge.reward.isna().all()


def test_null_agent_single_gold_equals_audit_do_nothing(null_run):
    audit = audit_golds(["airline", "retail"], VERSIONS, task_ids=TASKS).golds
    expected = {(r.task_version, r.domain, r.task_id): r.do_nothing for r in audit.itertuples()}
    trials = null_run.trials
    got = {}
    for r in trials.itertuples():
        if r.reward == 1.0:
            got[(r.task_version, r.domain, r.task_id)] = "passes"
        elif r.reward == 0.0:
            got[(r.task_version, r.domain, r.task_id)] = "fails"
        else:
            assert r.status == "no_judge", r
            got[(r.task_version, r.domain, r.task_id)] = "needs judge"
    assert got == expected
    assert set(expected.values()) >= {"passes", "fails", "needs judge"}  # the sample exercises each verdict
    # the shares per version and domain, as the audit prints them
    for (version, domain), g in trials.groupby(["task_version", "domain"]):
        a = audit[(audit.task_version == version) & (audit.domain == domain)]
        assert (g.reward == 1.0).sum() == a.passes_doing_nothing.eq(True).sum()


def test_null_agent_takes_no_model():
    with pytest.raises(ValidationError, match="null_agent takes no model"):
        AgentSpec(name="n", implementation="null_agent", model="openai/x")
    assert AgentSpec(name="n", implementation="null_agent").model is None
