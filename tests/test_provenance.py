"""run.json: written atomically, and a run rewritten under another catalog or judge says so."""

from __future__ import annotations

import json

from harness.provenance import catalog_sha256, record_run, run_info


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


def test_catalog_sha256_changes_with_the_rules(tmp_path, monkeypatch):
    import gold_variants
    import harness.provenance as provenance

    copy = tmp_path / "gold_variants"
    import shutil

    shutil.copytree(
        provenance.Path(gold_variants.__file__).parent,
        copy,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    monkeypatch.setattr(gold_variants, "__file__", str(copy / "__init__.py"))
    provenance.catalog_sha256.cache_clear()
    try:
        same = provenance.catalog_sha256()
        assert same == catalog_sha256()  # the copy hashes as the package does
        rule = next((copy / "readings").glob("*.py"))
        rule.write_text(rule.read_text() + "\n# a changed rule\n")
        provenance.catalog_sha256.cache_clear()
        assert provenance.catalog_sha256() != same
    finally:
        provenance.catalog_sha256.cache_clear()
