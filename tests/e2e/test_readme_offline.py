"""The README from a fresh clone anywhere (#48): the repository's files copied to a temporary folder outside the
project's parent, no ``HARNESS_TAU_DATA``, ``HARNESS_OFFLINE=1``, an empty cache and home. Every ``harness``
command of the README's shell blocks is run there, in order, as written: each exits 0, or exits 2 with the one
``error:`` line the README's comment beside it says it prints. The Python API block runs too.

Not run: the install (``pip install -e '.[dev]'``: this interpreter's packages stand in for it, the copy's own
source is what runs, checked below) and the test suite's command (this test is part of it)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, harness

README = (ROOT / "README.md").read_text()
WITHOUT = re.compile(r"#.*?(error: [^`]*?)\s*…\s*$")  # "# without it: error: … is not available: …"


def readme_commands() -> list[tuple[str, str | None]]:
    """Each ``harness`` command of the README's ``bash`` blocks, in order, with the error line (its start, up
    to the ``…``) the comment beside it says it prints, or None (it must exit 0)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        for line in block.splitlines():
            said = WITHOUT.search(line)
            code = line.split("  #", 1)[0].strip()
            for part in (p.strip() for p in code.split("&&")):
                if part.startswith("harness "):
                    commands.append((part, said.group(1) if said else None))
    return commands


def test_every_concrete_command_the_readme_names_is_one_this_test_runs():
    """An inline ``harness …`` in the prose that names a file or folder is a command of a block, or a form
    with placeholders (``CONFIG``, ``FILE``, ``…``); never a concrete command left untested. (A verb named alone,
    ``harness report``, is no command.)"""
    run = {c for c, _ in readme_commands()}
    assert {"harness sweep configs/offline-demo.yaml", "harness audit golds"} <= run
    for span in re.findall(r"`(harness [^`]*)`", README):
        placeholder = "…" in span or re.search(r"\b[A-Z][A-Z_]+\b", span)
        names_a_path = any("/" in arg or arg.endswith((".yaml", ".json")) for arg in span.split()[1:])
        assert placeholder or not names_a_path or span in run, span


def _copy_of_the_repository(dest: Path) -> Path:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def test_the_readme_from_a_fresh_clone_offline(tmp_path_factory):
    base = tmp_path_factory.mktemp("fresh-clone")
    assert not str(base.resolve()).startswith(str(ROOT.parent.resolve())), base  # outside the project's parent
    clone = _copy_of_the_repository(base / "clone")
    assert not (clone / "runs" / "offline-demo").exists() and not (clone / ".venv").exists()
    env = {k: v for k, v in os.environ.items() if k not in ("HARNESS_TAU_DATA", "COLUMNS", "PYTHONPATH")}
    env.update(HARNESS_OFFLINE="1", HOME=str(base / "home"), XDG_CACHE_HOME=str(base / "cache"))
    where = subprocess.run([sys.executable, "-c", "import harness, envs; print(harness.__file__, envs.__file__)"],
                           cwd=clone, env=env, capture_output=True, text=True)
    assert all(p.startswith(str(clone)) for p in where.stdout.split()), where  # the copy's source runs
    commands = readme_commands()
    assert commands[0] == ("harness sweep configs/offline-demo.yaml", None)  # the set-up block's main job first
    for command, said in commands:
        # ``python -m``, fresh: the copy's source runs, imported there
        proc = harness(*command.split()[1:], cwd=clone, env=env, fresh=True)
        shown = f"{command}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
        if said is None:
            assert proc.returncode == 0, shown
        else:
            lines = [line for line in proc.stderr.splitlines() if line.strip()]
            assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith(said), shown
        assert "Traceback" not in proc.stderr and "(raylet)" not in proc.stdout + proc.stderr, shown
    demo = clone / "runs" / "offline-demo"
    assert sorted(p.name for p in (demo / "tau2-results").iterdir()) == [
        "conservative_airline_tau2.json", "creative_airline_tau2.json", "inconsistent_airline_tau2.json"]
    assert not (demo / ".lock").exists() and not (demo / "parts").exists()  # a finished run keeps neither
    assert (clone / "runs" / "offline-demo_report.html").is_file() and not (clone / "report.html").exists()
    [api] = re.findall(r"```python\n(.*?)```", README, re.S)
    proc = subprocess.run([sys.executable, "-c", api], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_harness_version_prints_the_version():
    from importlib.metadata import version

    proc = harness("--version")
    assert proc.returncode == 0 and proc.stdout.startswith(f"harness {version('tau-loophole-harness')}"), proc


@pytest.mark.parametrize("line", ["harness versions counts --domain airline      # without it: error: tau3 x: …"])
def test_the_error_a_readme_comment_promises_is_read_whole(line):
    """The comment's error line is read up to its ``…``: the part every machine prints (not its cache path)."""
    said = WITHOUT.search(line)
    assert said is not None and said.group(1) == "error: tau3 x:"
