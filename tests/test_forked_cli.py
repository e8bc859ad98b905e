"""The zygote that forks the tests' CLI processes (tests/_forked_cli.py): each child gives what a fresh
``python -m harness.cli.main`` gives (exit status, signal, output, folder, environment, stdin, timeout), and a
call it could not stand in for goes to a fresh process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests._forked_cli import Zygote
from tests.conftest import CLI, REAL_RUNS, ROOT, harness, real_run

RETAIL5 = "whissle_retail_tau3_5sims.json"


@pytest.fixture(scope="module")
def zygote() -> Iterator[Zygote]:
    """A zygote of its own (only the CLI's app imported: quick to start), stopped after the module."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    z = Zygote(CLI, ["harness.cli._app"], env, ROOT)
    yield z
    z.close()
    assert z.process.returncode == 0


def _env(**changes: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def _run(z: Zygote, *argv: str, prelude: str | None = None, env: dict[str, str] | None = None,
         cwd: Path = ROOT, **kw: object) -> subprocess.CompletedProcess[str]:
    return z.run(argv, _env() if env is None else env, str(cwd), prelude=prelude, **kw)  # type: ignore[arg-type]


def test_the_exit_status_and_output_are_the_clis(zygote):
    done = _run(zygote, "--version")
    assert done.returncode == 0 and done.stdout.startswith("harness ") and done.stderr == "", done
    assert done.args == [sys.executable, "-m", CLI, "--version"]
    bad = _run(zygote, "rescore", "/no/such/file.json", "--out", "/no/such/out")
    assert bad.returncode == 2 and bad.stdout == "", bad
    assert bad.stderr == "error: /no/such/file.json: no such file, directory or glob match\n"


@pytest.mark.parametrize(("prelude", "returncode", "stderr", "traceback"), [
    ("raise SystemExit(3)", 3, "", False),
    ("raise SystemExit(256 + 7)", 7, "", False),
    ("raise SystemExit('bye')", 1, "bye\n", False),
    ("raise ValueError('boom')", 1, "ValueError: boom\n", True),
    ("raise KeyboardInterrupt", -signal.SIGINT, "KeyboardInterrupt\n", True),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)", -signal.SIGTERM, "", False),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", -signal.SIGKILL, "", False),
])
def test_an_exit_is_the_interpreters(zygote, prelude, returncode, stderr, traceback):
    """``SystemExit``'s code (its low byte; anything else printed, status 1), a traceback and status 1 (an
    uncaught Ctrl-C: death by SIGINT), and a death by signal as a negative returncode, as ``subprocess.run``
    reports a fresh interpreter's."""
    done = _run(zygote, "--version", prelude=prelude)
    assert done.returncode == returncode, done
    assert done.stderr.endswith(stderr) and ("Traceback" in done.stderr) == traceback, done
    assert done.stdout == "", done  # the CLI never ran


def test_the_interpreters_exit_runs_threads_atexit_and_flushes(zygote):
    """Non-daemon threads are waited for, atexit handlers run after them and see ``python -m``'s ``argv[0]``
    and ``__main__``, and what is buffered is written."""
    prelude = """
import atexit, sys, threading, time
def late():
    while threading.main_thread().is_alive():  # until the main thread has ended: the interpreter's exit
        time.sleep(0.01)
    print("thread done", flush=True)
threading.Thread(target=late).start()
atexit.register(lambda: sys.stdout.write("argv0 " + sys.argv[0] + " main " + sys.modules["__main__"].__file__))
sys.stdout = open(sys.stdout.fileno(), "w", buffering=1 << 16, closefd=False)  # nothing written until a flush
"""
    done = _run(zygote, "--version", prelude=prelude)
    main = str(ROOT / "harness" / "cli" / "main.py")
    assert done.returncode == 0, done
    lines = done.stdout.splitlines()
    assert lines[0].startswith("harness ") and lines[1:] == ["thread done", f"argv0 {main} main {main}"], done


def test_the_child_runs_in_the_calls_folder(zygote, tmp_path):
    """Relative paths are the folder's, and ``sys.path[0]`` is it, as ``python -m`` there."""
    shutil.copy(real_run(RETAIL5), tmp_path / "run.json")
    prelude = "import os, sys\nprint(sys.path[0] == os.getcwd(), flush=True)"
    done = _run(zygote, "rescore", "run.json", "--out", "out", prelude=prelude, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("True\n") and (tmp_path / "out" / "trials.parquet").is_file()


def test_the_child_has_the_calls_environment_whole(zygote, tmp_path):
    """The environment is replaced, not added to: without ``$HARNESS_TAU_DATA``, offline and with an empty
    cache, τ³'s tasks are not available; ``$HARNESS_TEST_MARK`` is set and what the imports read is unchanged."""
    env = _env(HARNESS_TAU_DATA=None, HARNESS_OFFLINE="1", XDG_CACHE_HOME=str(tmp_path), HARNESS_TEST_MARK="m")
    assert zygote.cannot_run(env, str(ROOT)) is None
    prelude = "import os\nprint(sorted(k for k in os.environ if k.startswith('HARNESS_')), flush=True)"
    done = _run(zygote, "versions", "counts", "--domain", "airline", prelude=prelude, env=env)
    assert done.stdout.splitlines()[0] == str(sorted(k for k in env if k.startswith("HARNESS_"))), done
    assert done.returncode == 2 and done.stderr.startswith("error: tau3 airline/tasks.json is not available"), done
    assert _run(zygote, "versions", "counts", "--domain", "airline").returncode == 0


def test_stdin_is_the_calls_input_and_no_other_file_is_open(zygote):
    prelude = """
import os, sys
print(sys.stdin.read()[::-1], sorted(os.listdir("/proc/self/fd")), flush=True)
"""
    done = _run(zygote, "--version", prelude=prelude, input="olleh")
    head, fds = done.stdout.splitlines()[0].split(" ", 1)
    assert head == "hello" and json.loads(fds.replace("'", '"')) == ["0", "1", "2", "3"], done  # 3: the listing


def test_a_timeout_kills_the_child_and_raises_as_subprocess_run(zygote):
    prelude = "import os, time\nprint(os.getpid(), flush=True)\ntime.sleep(60)"
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as raised:
        _run(zygote, "--version", prelude=prelude, timeout=2)
    assert 2 <= time.monotonic() - started < 20
    pid = int(raised.value.output.decode())  # bytes, as subprocess.run's
    assert raised.value.timeout == 2 and raised.value.cmd[-1] == "--version"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped
    assert _run(zygote, "--version").returncode == 0  # and the zygote answers the next call


def test_a_call_the_imports_would_see_differently_needs_a_fresh_process(zygote, tmp_path):
    """Variables the imports read, the interpreter's, and a folder that would import other source."""
    read = zygote.ready.read_at_import
    assert "TYPER_USE_RICH" in read and "HARNESS_TAU_DATA" not in read
    assert "TYPER_USE_RICH" in (zygote.cannot_run(_env(TYPER_USE_RICH="0"), str(ROOT)) or "")
    assert "PYTHONHASHSEED" in (zygote.cannot_run(_env(PYTHONHASHSEED="1"), str(ROOT)) or "")
    assert zygote.cannot_run(_env(COLUMNS="50"), str(ROOT)) is None
    assert zygote.cannot_run(_env(), str(tmp_path)) is None  # nothing to import there
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "__init__.py").write_text("")
    assert "module harness" in (zygote.cannot_run(_env(), str(tmp_path)) or "")


def test_the_suites_zygote_forks_without_threads_and_gives_what_a_fresh_process_gives(tmp_path):
    """The suite's zygote (every module the verbs import) holds no thread, no project cache filled and no
    started Ray, and a verb's output is a fresh process's."""
    prelude = """
import functools, gc, sys, threading
gc.unfreeze()  # the zygote froze what it imported: get_objects would not list it
ours = ("harness", "envs", "policy_model", "conversation_reading", "gold_variants", "loophole_scoring",
        "loophole_ingest", "loophole_store", "analysis", "loophole_report", "loophole_base")
filled = [f"{f.__module__}.{f.__qualname__}" for f in gc.get_objects() if isinstance(f, functools._lru_cache_wrapper)
          and f.cache_info().currsize and f.__module__.split(".")[0] in ours]
print(threading.active_count(), "ray" in sys.modules, "tau2" in sys.modules, filled, flush=True)
"""
    forked = harness("leaderboard", str(real_run(RETAIL5)), "--out", str(tmp_path / "forked"))
    fresh = harness("leaderboard", str(real_run(RETAIL5)), "--out", str(tmp_path / "fresh"), fresh=True)
    assert forked.returncode == fresh.returncode == 0
    assert forked.stdout.replace("forked", "fresh") == fresh.stdout and forked.stderr == fresh.stderr
    from tests.conftest import _zygote

    if os.environ.get("HARNESS_TEST_FRESH_CLI") == "1":
        pytest.skip("every call is fresh here")
    [z] = _zygote
    assert z.startup_threads == 1
    probe = z.run(["--version"], _env(), os.getcwd(), prelude=prelude)
    # one cache an import fills, as in a fresh process: what regex patterns need (a pure function of them)
    assert probe.stdout.splitlines()[0] == "1 False True ['conversation_reading._gate._needs']", probe
    assert REAL_RUNS.is_dir()
