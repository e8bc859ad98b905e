"""run.json: written atomically, and a run rewritten under another catalog or judge says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gold_variants import catalog_sha256
from loophole_store import record_run, run_info


def test_same_catalog_and_judge_rewrite_quietly(tmp_path):
    info = run_info("rescore", {("airline", "tau2")}, None)
    assert record_run(tmp_path, info) == [] and record_run(tmp_path, info) == []
    saved = json.loads((tmp_path / "run.json").read_text())
    assert saved["catalog_sha256"] == catalog_sha256() and saved["history"] == []
    assert set(saved["task_data_sha256"]) == {
        "tau2/airline/tasks.json",
        "tau2/airline/policy.md",
        "tau2/airline/db.json",
    }


def test_another_catalog_or_judge_is_reported_and_kept_in_history(tmp_path):
    record_run(tmp_path, run_info("rescore", {("airline", "tau2")}, None))
    older = {**run_info("rescore", {("airline", "tau2")}, None), "catalog_sha256": "0" * 64}
    (tmp_path / "run.json").write_text(json.dumps(older))
    notes = record_run(
        tmp_path, run_info("rescore", {("airline", "tau2")}, {"model": "openai/judge"})
    )
    assert len(notes) == 2
    assert (
        "catalog_sha256 changed" in notes[0]
        and "0000000000000000 -> " + catalog_sha256()[:16] in notes[0]
    )
    assert "judge changed" in notes[1] and "openai/judge" in notes[1]
    saved = json.loads((tmp_path / "run.json").read_text())
    assert (
        saved["judge"] == {"model": "openai/judge"}
        and saved["history"][0]["catalog_sha256"] == "0" * 64
    )


def _package_copy(tmp_path):
    import shutil

    import gold_variants

    copy = tmp_path / "gold_variants"
    shutil.copytree(Path(gold_variants.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_catalog_sha256_changes_with_the_rules(tmp_path):
    copy = _package_copy(tmp_path)
    assert catalog_sha256(copy) == catalog_sha256()  # the copy hashes as the package does
    rule = copy / "readings" / "compensation.py"  # a reading rule, not catalog.yaml
    rule.write_text(rule.read_text() + "\n# a changed rule\n")
    assert catalog_sha256(copy) != catalog_sha256()


def test_catalog_sha256_covers_the_borrowed_golds(tmp_path):
    """report_golds.yaml (another version's gold actions a task report's variant credits) is catalog data."""
    copy = _package_copy(tmp_path)
    golds = copy / "report_golds.yaml"
    text = golds.read_text()
    assert "dob: '1981-05-26'" in text
    golds.write_text(text.replace("dob: '1981-05-26'", "dob: '1985-04-04'"))
    assert catalog_sha256(copy) != catalog_sha256()


def test_catalog_sha256_covers_the_reading_vocabulary(tmp_path):
    """The words a conversation is read with (``conversation_reading/vocabulary.yaml``) decide credits: a changed
    word is a different catalog, as a changed rule is."""
    import shutil

    import conversation_reading

    copy = tmp_path / "conversation_reading"
    shutil.copytree(Path(conversation_reading.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert catalog_sha256(reading_root=copy) == catalog_sha256()
    words = copy / "vocabulary.yaml"
    text = words.read_text()
    assert "entry: L6" in text
    words.write_text(text.replace("'basic[\\s-]*economy'", "'basic[\\s-]*econ\\w*'", 1))
    assert words.read_text() != text and catalog_sha256(reading_root=copy) != catalog_sha256()


def test_a_changed_policy_rule_is_a_different_catalog(tmp_path):
    """The policy model's rules (``policy_model``) decide verdicts too: a changed table is a different catalog."""
    import shutil

    import policy_model

    copy = tmp_path / "policy_model"
    shutil.copytree(Path(policy_model.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert catalog_sha256(policy_root=copy) == catalog_sha256()
    money = copy / "_airline_money.py"
    text = money.read_text()
    money.write_text(text.replace("EXTRA_BAG_FEE = 50", "EXTRA_BAG_FEE = 60", 1))
    assert money.read_text() != text and catalog_sha256(policy_root=copy) != catalog_sha256()


def test_the_cluster_check_refuses_a_node_whose_rules_differ(tmp_path, monkeypatch, no_handed_over_data):
    """A worker node with the same catalog.yaml but another reading rule refuses the driver's payload."""
    import gold_variants._catalog_hash as catalog_hash
    from harness.cluster import ClusterMismatchError, build_payload, install_payload

    payload = build_payload([("airline", "tau2")])  # the driver's hash
    copy = _package_copy(tmp_path)
    install_payload(payload)  # the same package: accepted
    rule = copy / "readings" / "rebooking.py"
    rule.write_text(rule.read_text() + "\n# this node's rule differs\n")
    monkeypatch.setattr(catalog_hash, "_PACKAGE", copy)  # the node's installed package is the copy
    catalog_hash._package_sha256.cache_clear()
    try:
        with pytest.raises(ClusterMismatchError, match="differs from the driver"):
            install_payload(payload)
    finally:
        catalog_hash._package_sha256.cache_clear()
