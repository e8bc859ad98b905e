"""Never delete what the harness did not write (#34, item 1): every folder or file ``view`` and ``report``
write is refused in one line when it holds anything else, input and output are never the same folder, and
what the same verb wrote before is replaced as a build output is."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from harness import rescore
from tests.conftest import harness, real_run


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def _user_folder(path: Path) -> Path:
    """A folder of a user's own: a note and a thesis with a subfolder."""
    (path / "chapters").mkdir(parents=True)
    (path / "notes.txt").write_text("my notes\n")
    (path / "thesis.tex").write_text("\\documentclass{article}\n")
    (path / "chapters" / "one.tex").write_text("chapter one\n")
    return path


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    run = tmp_path_factory.mktemp("run") / "whissle"
    rescore([real_run("whissle_retail_tau3_5sims.json")], run)  # in process: the tests' point is view/report/analyze
    return run


def _refused(proc, *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr[-1500:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-1500:]
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_view_refuses_a_users_folder_and_keeps_it(run_dir, tmp_path):
    mine = _user_folder(tmp_path / "mine")
    before = _snapshot(mine)
    proc = harness("view", str(run_dir), "--out", str(mine))
    _refused(proc, "did not write")
    assert any(name in proc.stderr for name in ("notes.txt", "thesis.tex", "chapters/one.tex")), proc.stderr
    assert _snapshot(mine) == before


def test_view_never_writes_over_the_run_it_reads(run_dir):
    before = _snapshot(run_dir)
    _refused(harness("view", str(run_dir), "--out", str(run_dir)), "input")
    _refused(harness("view", str(run_dir), "--out", str(run_dir / "site")), "input")
    assert _snapshot(run_dir) == before


def test_view_rebuilds_its_own_site_but_not_once_a_user_file_is_added(run_dir, tmp_path):
    site = tmp_path / "site"
    first = harness("view", str(run_dir), "--out", str(site))
    assert first.returncode == 0, first.stderr[-1500:]
    again = harness("view", str(run_dir), "--out", str(site))  # a build output is replaced
    assert again.returncode == 0, again.stderr[-1500:]
    assert (site / "index.html").is_file()
    (site / "t" / "my-annotations.txt").write_text("keep me\n")
    _refused(harness("view", str(run_dir), "--out", str(site)), "my-annotations.txt")
    assert (site / "t" / "my-annotations.txt").read_text() == "keep me\n"


def test_view_default_folder_beside_the_run_is_checked_too(run_dir, tmp_path):
    run = tmp_path / "copy"
    shutil.copytree(run_dir, run)
    default = tmp_path / "copy_viewer"
    _user_folder(default)
    before = _snapshot(default)
    _refused(harness("view", str(run)), "default viewer folder")
    assert _snapshot(default) == before


def test_report_refuses_a_users_viewer_folder_and_file(run_dir, tmp_path):
    mine = _user_folder(tmp_path / "mine")
    before = _snapshot(mine)
    out = tmp_path / "report.html"
    _refused(harness("report", str(run_dir), "--out", str(out), "--viewer", str(mine)), "--viewer")
    assert _snapshot(mine) == before and not out.exists()

    _user_folder(tmp_path / "report_viewer")  # the default viewer folder beside the report
    before_default = _snapshot(tmp_path / "report_viewer")
    _refused(harness("report", str(run_dir), "--out", str(out)), "default viewer folder")
    assert _snapshot(tmp_path / "report_viewer") == before_default

    thesis = tmp_path / "thesis.html"
    thesis.write_text("<html>my thesis</html>")
    _refused(harness("report", str(run_dir), "--out", str(thesis), "--viewer", str(tmp_path / "v")), "not a report")
    assert thesis.read_text() == "<html>my thesis</html>" and not (tmp_path / "v").exists()

    before_run = _snapshot(run_dir)
    _refused(harness("report", str(run_dir), "--out", str(run_dir / "r.html"), "--viewer", str(tmp_path / "v")),
             "inside the run")
    _refused(harness("report", str(run_dir), "--out", str(tmp_path / "r.html"), "--viewer", str(run_dir)), "input")
    assert _snapshot(run_dir) == before_run


def test_report_rewrites_its_own_report_and_viewer(run_dir, tmp_path):
    out = tmp_path / "r" / "report.html"
    for _ in range(2):
        proc = harness("report", str(run_dir), "--out", str(out))
        assert proc.returncode == 0, proc.stderr[-1500:]
    assert (tmp_path / "r" / "report_viewer" / "index.html").is_file()


def test_analyze_and_audit_golds_refuse_a_users_folder(run_dir, tmp_path):
    mine = _user_folder(tmp_path / "mine")
    (mine / "success.csv").write_text("my own table\n")  # a name analyze writes too
    before = _snapshot(mine)
    _refused(harness("analyze", str(run_dir), "--out", str(mine), "--bootstrap", "100"), "did not write")
    _refused(harness("analyze", str(run_dir), "--out", str(run_dir / "tables"), "--bootstrap", "100"), "input")
    _refused(harness("audit", "golds", "--domain", "retail", "--task-version", "tau3", "--out", str(mine)),
             "did not write")
    assert _snapshot(mine) == before
    tables = tmp_path / "tables"
    for _ in range(2):  # its own tables are replaced as a build output is
        proc = harness("analyze", str(run_dir), "--out", str(tables), "--bootstrap", "100")
        assert proc.returncode == 0, proc.stderr[-1500:]
    assert (tables / "success.csv").is_file()


def test_audit_policy_refuses_a_users_folder_and_rebuilds_its_own(tmp_path):
    mine = _user_folder(tmp_path / "mine")
    (mine / "structural_profile.parquet").write_text("mine\n")  # the name audit policy writes
    before = _snapshot(mine)
    _refused(harness("audit", "policy", "--domain", "airline", "--out", str(mine)), "did not write")
    assert _snapshot(mine) == before
    own = tmp_path / "audit"
    for _ in range(2):  # its own folder is replaced whole
        proc = harness("audit", "policy", "--domain", "airline", "--out", str(own))
        assert proc.returncode == 0, proc.stderr[-1500:]
    assert sorted(p.name for p in own.iterdir()) == [".harness-output.json", "structural_profile.parquet"]


def test_audit_traces_refuses_a_users_file_and_rewrites_its_own(run_dir, tmp_path):
    mine = tmp_path / "results.parquet"
    mine.write_text("my own results\n")
    _refused(harness("audit", "traces", str(run_dir), "--out", str(mine)), "refusing to replace")
    assert mine.read_text() == "my own results\n"
    own = tmp_path / "audit.parquet"
    for _ in range(2):  # its own table is rewritten
        proc = harness("audit", "traces", str(run_dir), "--out", str(own))
        assert proc.returncode == 0, proc.stderr[-1500:]
    assert own.stat().st_size > 0
