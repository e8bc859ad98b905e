"""The loophole catalog: all 18 entries, typed, with verbatim policy quotes."""

from __future__ import annotations

from envs import load_task_set
from gold_variants import load_catalog


def test_catalog_has_all_entries():
    catalog = load_catalog()
    ids = [e.id for e in catalog.entries]
    assert ids == [f"L{i}" for i in range(1, 17)] + ["R1", "R2"]
    assert {e.id for e in catalog.entries if e.kind == "annotation_conflict"} == {"L15"}
    assert sum(e.kind == "loophole" for e in catalog.entries) == 17
    assert catalog.paper_tasks("airline") == {"2", "5", "13", "27", "29", "32", "45"}
    assert catalog.loophole_tasks("airline") == {"2", "5", "13", "14", "27", "29", "32", "38", "45"}
    assert catalog.loophole_tasks("retail") == set()


def test_every_clause_is_quoted_verbatim():
    policies = {d: load_task_set(d, "tau2").policy for d in ("airline", "retail")}
    for entry in load_catalog().entries:
        assert entry.clause, entry.id
        for quote in entry.clause:
            assert quote in policies[entry.domain], f"{entry.id}: not verbatim in {entry.domain} policy: {quote!r}"


def test_policies_identical_across_versions():
    """Read from each version's own file and compared byte for byte, and against the data manifest's
    independent record of each version, not against the project's one pin per domain."""
    import hashlib
    import json

    from tests.conftest import TAU_DATA

    manifest = json.loads((TAU_DATA / "MANIFEST.json").read_text())["files"]
    for d in ("airline", "retail"):
        old, new = (TAU_DATA / "tau2" / d / "policy.md").read_bytes(), (TAU_DATA / "tau3" / d / "policy.md").read_bytes()
        assert old == new
        assert manifest[f"tau2/{d}/policy.md"] == hashlib.sha256(old).hexdigest() == manifest[f"tau3/{d}/policy.md"]
        assert load_task_set(d, "tau3").policy == new.decode("utf-8")  # the loader reads the tau3 file as it is


def test_loopholes_have_readings_and_discovery():
    for entry in load_catalog().entries:
        if entry.kind == "loophole":
            assert len(entry.readings) >= 2 and entry.discovery in ("S1", "S1+S2"), entry.id
    assert load_catalog().get("L15").readings == []


def test_the_reading_vocabulary_names_catalog_entries(monkeypatch):
    """conversation_reading/vocabulary.yaml's evidence kinds and offers name catalog.yaml entries, and define every
    evidence kind a variant may need: a name that points nowhere fails when the catalog loads."""
    import pytest

    import conversation_reading
    from gold_variants import _model

    words = conversation_reading.load_vocabulary().model_copy(deep=True)
    _model._check_vocabulary_names(load_catalog())  # the installed vocabulary and catalog agree
    words.evidence["refusal"].entry = "R9"
    monkeypatch.setattr(conversation_reading, "load_vocabulary", lambda: words)
    with pytest.raises(ValueError, match="evidence: refusal: entry 'R9' is no catalog.yaml entry"):
        _model._check_vocabulary_names(load_catalog())
    words.evidence["refusal"].entry = "R2"
    del words.evidence["refuse_route_change"]
    with pytest.raises(ValueError, match="refuse_route_change: a variant's evidence kind it does not define"):
        _model._check_vocabulary_names(load_catalog())
