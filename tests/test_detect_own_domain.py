"""Task-version detection reads the other domain's pinned task sets only where none of the file's embedded tasks is
one of its own domain's (#47): it answers as counting every domain first does (the same version and note, or the same
refusal), on every shared run file and on each file's tasks said to be of the other domain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import envs._detect as _detect
from envs import DOMAINS
from loophole_base import HarnessInputError
from loophole_ingest._runs import _embedded_tasks
from tests.conftest import SHARED

FILES = sorted([*(SHARED / "real-runs").glob("*.json"), *(SHARED / "dev-corpus/runs").glob("*.json"),
                *(SHARED / "dev-corpus/other-families/runs").glob("*.json")])


def _answer(path: Path, domain: str, embedded: list, ids: list[str]) -> tuple[str, str] | str:
    try:
        return _detect.detect_task_version(path, domain, embedded, ids, None, None)
    except HarnessInputError as exc:
        return f"refused: {exc}"


def test_detection_answers_as_counting_every_domain_and_reads_the_others_only_to_refuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counted = _detect._match_counts
    asked: list[tuple[str, ...]] = []

    def as_asked(embedded: list, ids: list[str], domains: tuple[str, ...] = DOMAINS) -> dict:
        asked.append(domains)
        return counted(embedded, ids, domains)

    def every_domain(embedded: list, ids: list[str], domains: tuple[str, ...] = DOMAINS) -> dict:
        return counted(embedded, ids, DOMAINS)

    assert len(FILES) > 30
    refused = 0
    for path in FILES:
        data = json.loads(path.read_text())
        embedded, ids = _embedded_tasks(str(path), data.get("tasks") or [])
        own = data["info"]["environment_info"]["domain_name"]
        for domain in (own, *(d for d in DOMAINS if d != own)):
            asked.clear()
            with monkeypatch.context() as m:
                m.setattr(_detect, "_match_counts", as_asked)
                lazy = _answer(path, domain, embedded, ids)
            lazy_asked = list(asked)
            with monkeypatch.context() as m:
                m.setattr(_detect, "_match_counts", every_domain)
                assert _answer(path, domain, embedded, ids) == lazy, (path.name, domain)
            if domain == own:  # its own tasks: the other domain's task sets are never read
                assert lazy_asked == [(own,)], (path.name, lazy_asked)
                assert not isinstance(lazy, str), lazy
            elif isinstance(lazy, str) and "domain mismatch" in lazy:
                refused += 1
    assert refused > 30  # each file said to be of the other domain is refused, naming its tasks' domain
