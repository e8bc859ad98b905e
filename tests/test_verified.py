"""τ²-Bench-Verified beside τ² and τ³: the pin, the diff counts (against an independent count from the files),
detection from embedded tasks, and the clause rules' variants on Verified's tasks."""

from __future__ import annotations

import json
from itertools import combinations

import pytest

from envs import TASK_VERSIONS, diff_versions, load_task_set
from envs._pinned import download_url
from tests.conftest import ROOT, harness, real_run


def _independent_counts(domain: str, old: str, new: str) -> tuple[int, int, list[str]]:
    """From the two tasks.json files alone: tasks edited (any field but ``reward_basis``, which τ³ restated on
    every task) and tasks whose gold actions differ (missing and empty alike, as tau2's evaluator reads them)."""
    def raw(version: str) -> dict[str, dict]:
        tasks = json.loads(load_task_set(domain, version).tasks_path.read_text(encoding="utf-8"))
        out = {}
        for task in tasks:
            task = json.loads(json.dumps(task))
            criteria = task.get("evaluation_criteria") or {}
            criteria.pop("reward_basis", None)
            for key in list(criteria):
                if criteria[key] in (None, [], {}):
                    del criteria[key]
            for key in list(task):
                if task[key] in (None, [], {}, ""):
                    del task[key]
            out[str(task["id"])] = task
        return out

    a, b = raw(old), raw(new)
    edited = [t for t in a if json.dumps(a[t], sort_keys=True) != json.dumps(b.get(t), sort_keys=True)]
    actions = sorted(
        (t for t in a if (a[t].get("evaluation_criteria") or {}).get("actions")
         != ((b.get(t) or {}).get("evaluation_criteria") or {}).get("actions")),
        key=int,
    )
    return len(edited), len(actions), actions


@pytest.mark.parametrize("domain", ["airline", "retail"])
@pytest.mark.parametrize(("old", "new"), list(combinations(TASK_VERSIONS, 2)))
def test_versions_diff_counts_match_an_independent_count(domain, old, new):
    edited, n_actions, action_ids = _independent_counts(domain, old, new)
    diff = diff_versions(domain, old, new)
    assert len(diff.changed_ids) == edited
    assert diff.changed_ids_by_field().get("actions", []) == action_ids and len(action_ids) == n_actions
    assert all(check.identical for check in diff.files)  # same policy.md and db.json in every version


def test_the_issues_verified_figures():
    """The figures Verified's own description gives (airline: 27 edited, gold actions on 11; retail: 35, 8)."""
    assert _independent_counts("airline", "tau2", "verified")[:2] == (27, 11)
    assert _independent_counts("airline", "tau2", "verified")[2] == "2 7 9 21 23 27 29 35 37 38 44".split()
    assert _independent_counts("retail", "tau2", "verified")[:2] == (35, 8)
    assert _independent_counts("retail", "tau3", "verified")[1] == 8  # Verified and τ³ still disagree


def test_the_three_way_count_table_and_any_pair():
    proc = harness("versions", "counts", "--domain", "airline", timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    rows = {tuple(c.strip() for c in line.split("│")[1:3]): [c.strip() for c in line.split("│")[3:-1]]
            for line in proc.stdout.splitlines() if line.startswith("│")}
    for old, new in combinations(TASK_VERSIONS, 2):
        edited, n_actions, ids = _independent_counts("airline", old, new)
        assert rows[(old, new)][:3] == ["50", str(edited), str(n_actions)]
        assert rows[(old, new)][-1].split() == ids
    proc = harness("versions", "diff", "--domain", "retail", "--from", "tau3", "--to", "verified", timeout=300)
    assert proc.returncode == 0 and f"{_independent_counts('retail', 'tau3', 'verified')[0]} of 114 tasks changed from tau3 to verified" in proc.stdout
    bad = harness("versions", "diff", "--domain", "retail", "--from", "tau9", timeout=300)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "'tau9' is not one of" in bad.stderr


def test_verified_is_pinned_to_amazons_commit():
    url = download_url("verified", "airline", "tasks.json")
    assert url.startswith("https://raw.githubusercontent.com/amazon-agi/tau2-bench-verified/9d0d5ae")
    assert url.endswith("/data/tau2/domains/airline/tasks.json")
    assert load_task_set("retail", "verified").policy == load_task_set("retail", "tau2").policy


def test_a_tau2_run_with_verifieds_tasks_embedded_is_detected_as_verified(tmp_path):
    from loophole_ingest import import_results_file

    data = json.loads(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text(encoding="utf-8"))
    assert import_results_file(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json")).task_version == "tau2"
    verified = {str(t["id"]): t for t in load_task_set("airline", "verified").raw_tasks}
    data["tasks"] = [verified[str(t["id"])] for t in data["tasks"]]
    path = tmp_path / "as_verified.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    run = import_results_file(path)
    assert run.task_version == "verified"
    assert "differ from tau2" in run.version_note and "differ from tau3" in run.version_note


def test_the_clause_rules_yield_verifieds_variants_with_no_rule_of_its_own():
    from gold_variants import check_variants

    report = check_variants()
    assert report.ok, report.problems
    on = {key: set(per.get("verified", [])) for key, per in report.applies.items()}
    # Verified drops the delay certificate on 2, 27 and 38: the lenient reading is a variant there, as on τ³
    assert on[("L3/L4", "lenient")] == {"airline:2", "airline:27", "airline:38"}
    assert not on.get(("L3/L4", "strict"))
    # on 29 Verified cancels and rebooks, as τ³ does: modifying in place and refusing are the variants
    assert "airline:29" in on[("L16", "modify_in_place")] and "airline:29" in on[("L16", "refuse")]
    assert "airline:29" not in on[("L16", "cancel_and_rebook")]


def test_a_variant_no_reviewed_version_yields_is_printed_for_a_reviewer(monkeypatch):
    """Verified's variants all equal one a reviewed version (τ³) yields for the same task; with τ³ taken out of
    the reviewed versions, the ones only τ³ shares (lenient on 2, 27, 38) are listed for a reader."""
    from gold_variants import _check as check

    assert check.check_variants().unreviewed == []
    monkeypatch.setattr(check, "REVIEWED_VERSIONS", ("tau2",))
    listed = [line for line in check.check_variants().unreviewed if line.startswith("airline verified task ")]
    lenient = [line for line in listed if "L3L4.lenient (lenient)" in line]
    assert {line.split(" task ")[1].split()[0] for line in lenient} == {"2", "27", "38"}
    assert all("a reviewer should read it" in line for line in listed)
    assert not any(" task 5 " in line or " task 32 " in line for line in listed)  # as on τ²: reviewed


def test_the_readings_table_follows_each_versions_gold_actions():
    """Which reading a gold takes, checked against its actions read directly: a certificate sent is the lenient
    reading of L3/L4 and none the strict; on L16 a flight update is modifying in place, a cancel plus a booking
    is cancelling and rebooking."""
    from gold_variants import readings_by_version

    rows = {r["task_id"]: r for r in readings_by_version("airline")}
    assert {"2", "27", "29", "38"} <= set(rows)
    for version in TASK_VERSIONS:
        for task_id, row in rows.items():
            names = [a.name for a in load_task_set("airline", version).task(task_id).evaluation_criteria.actions or []]
            if row["loophole"] == "L3/L4":
                assert row[version] == ("lenient" if "send_certificate" in names else "strict"), (version, task_id)
            if task_id == "29":
                expected = "modify_in_place" if "update_reservation_flights" in names else "cancel_and_rebook"
                assert "cancel_reservation" in names or expected == "modify_in_place"
                assert row[version] == expected
    disagree = {t for t, r in rows.items() if not r["agree"]}
    assert disagree == {"2", "27", "29", "38"}  # τ² against τ³ and Verified, which converge
    assert all(rows[t]["tau3"] == rows[t]["verified"] for t in rows)
    proc = harness("versions", "readings", "--domain", "airline", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "disagree on 4 (2, 27, 29, 38)" in proc.stdout


def test_the_versions_table_compares_every_pair_an_agent_ran():
    """A narrow unit test of the analysis on hand-made rows: one agent on task 2 under all three versions."""
    import pandas as pd

    from analysis import version_comparison

    rows = [("a", "airline", "2", v, r) for v, r in (("tau2", 0.0), ("tau3", 1.0), ("verified", 1.0))]
    rows += [("a", "airline", "5", "tau2", 1.0), ("b", "airline", "2", "verified", 0.0)]
    trials = pd.DataFrame(rows, columns=["agent_name", "domain", "task_id", "task_version", "reward"])
    trials = trials.assign(status="ok", multi_gold_reward=trials.reward)
    table = version_comparison(trials)
    got = {(r.version_a, r.version_b): (r.success_a, r.success_b, r.delta) for r in table.itertuples()}
    assert got == {("tau2", "tau3"): (0.0, 1.0, 1.0), ("tau2", "verified"): (0.0, 1.0, 1.0),
                   ("tau3", "verified"): (1.0, 1.0, 0.0)}  # task 5 and agent b ran under one version only


def _serve(root):
    """A mirror of raw.githubusercontent.com/<repo> on 127.0.0.1 serving ``root``; (base URL, server)."""
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


@pytest.mark.parametrize("tamper", [False, True])
def test_verified_is_downloaded_from_its_pinned_commit_and_checked(isolated_data, monkeypatch, tamper):
    from envs import COMMITS, TauDataError
    from envs._data import ENV_DOWNLOAD_BASE, ENV_OFFLINE
    from tests.conftest import TAU_DATA

    mirror = isolated_data / "mirror" / COMMITS["verified"] / "data" / "tau2" / "domains" / "airline"
    mirror.mkdir(parents=True)
    for name in ("tasks.json", "policy.md"):
        raw = (TAU_DATA / "verified" / "airline" / name).read_bytes()
        (mirror / name).write_bytes(raw.replace(b'"id": "1"', b'"id": "1x"', 1) if tamper else raw)
    base, server = _serve(isolated_data / "mirror")
    try:
        with pytest.raises(TauDataError, match="verified airline/tasks.json is not available"):
            load_task_set("airline", "verified")  # offline: says how to provide it
        monkeypatch.delenv(ENV_OFFLINE)
        monkeypatch.setenv(ENV_DOWNLOAD_BASE, base)
        if tamper:
            with pytest.raises(TauDataError, match="downloaded verified airline/tasks.json has sha256 .* refusing"):
                load_task_set("airline", "verified")
            assert not (isolated_data / "cache" / "tau-harness" / "verified" / "airline" / "tasks.json").exists()
        else:
            assert len(load_task_set("airline", "verified").tasks) == 50
            assert (isolated_data / "cache" / "tau-harness" / "verified" / "airline" / "tasks.json").is_file()
    finally:
        server.shutdown()
