"""Shared test setup: point the harness at ../shared and keep tau2 quiet and offline; the one way tests drive
the CLI (``harness``); and the helpers more than one test module needs (test modules never import each other:
tests/test_architecture.py checks it)."""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, overload

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HARNESS_SHARED", ROOT.parent / "shared")).resolve()
TAU_DATA = SHARED / "tau-data"
REAL_RUNS = SHARED / "real-runs"

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["HARNESS_TAU_DATA"] = str(TAU_DATA)
# a CLI child prints as wide as $COLUMNS says: a test that wants a width sets it (tests/e2e/test_terminal.py); one
# inherited from the shell or set for pytest-xdist's workers would narrow every other child's output
os.environ.pop("COLUMNS", None)

from harness._quiet import set_log_level  # noqa: E402

set_log_level(False)


# --- the order xdist hands out test files -------------------------------------------------------------
# CI runs ``-n 3 --dist loadfile``: each worker takes a whole file, the next one in the queue when it is nearly
# done. The suite is CPU-bound on 2 cores (about 1,210 s of CPU at f2455f6, Ray's and the CLI's processes
# included), so what the order can win is idle cores. Two kinds of long file differ: the sweeps against the
# scripted server (and the rate-limit test) mostly wait (its latency, retry delays, Ray's start, a signal's
# moment: 5-30 s of wall per CPU-s under load), the rest mostly compute (2-3 s per CPU-s). Listed slowest first,
# as before, three waiting files took the three workers at once and the two cores idled; here each waiting file
# (marked ``# waits``) follows two computing ones, so that about one worker waits while two keep the cores busy.
# The README's fresh clone (the 600-trial demo sweep, then every command after it) is one test that cannot be
# split: it goes first, or it could run alone at the end. Then the rest as xdist orders them (most tests first),
# so the short files fill the gaps at the end. Per-file CPU and wall: one whole-suite run on 2 cores, 3 workers,
# at f2455f6; a new long file belongs in this list, by its kind.
SLOWEST_FILES = (
    "e2e/test_readme_offline.py",
    "e2e/test_scale.py",  # waits
    "test_fuzz_inputs.py", "e2e/test_report.py",
    "e2e/test_sweep_resume.py",  # waits
    "e2e/test_terminal.py", "e2e/test_interrupt.py",
    "e2e/test_sweep_faults.py",  # waits
    "e2e/test_no_data_loss.py", "test_replay_property.py",
    "e2e/test_sweep.py",  # waits
    "test_rescore_speed.py", "test_against_version.py",
    "test_null_agent.py",  # waits
    "e2e/test_wild_errors.py", "e2e/test_rescore_layouts.py",
    "e2e/test_offline_report.py",  # waits
    "test_audit_golds.py", "e2e/test_explain_cli.py",
    "e2e/test_sweep_stops.py",  # waits
    "e2e/test_rescore_cli.py", "test_rescore_scale.py",
    "test_ray_start.py",  # waits
    "e2e/test_band.py", "e2e/test_report_contract.py",
    "test_gym.py",  # waits
    "test_rescore_parity.py", "e2e/test_leaderboard.py",
    "test_ratelimit.py",  # waits
    "e2e/test_no_mixing.py", "e2e/test_rank_sensitivity.py", "e2e/test_bad_run_files.py", "e2e/test_help.py",
    "e2e/test_report_layout.py", "test_replay_modes.py", "e2e/test_rescore_wild_shapes.py",
    "e2e/test_tau2_main_fields.py", "e2e/test_analyze_two_trials.py", "test_audit.py", "test_strict_reward.py",
)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # the queue is the collection's order, set below
    if not hasattr(config, "workerinput"):  # once, in the process that starts xdist's workers, before them
        _compile_the_project()


def _compile_the_project() -> None:
    """The project's bytecode, written once before any test. Where ``PYTHONDONTWRITEBYTECODE`` is set (the
    machines this suite runs on here set it), Python reads bytecode but never writes it, so each of the suite's
    hundreds of CLI processes and Ray workers compiled every project module it imported from source (about
    0.2 CPU-s each). What a process imports is the same source either way."""
    import compileall
    import tomllib

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    for package in dict.fromkeys(packages):
        compileall.compile_dir(ROOT / package, quiet=1, workers=0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def file_of(item: pytest.Item) -> str:
        return item.nodeid.split("::", 1)[0].removeprefix("tests/")

    tests_in: dict[str, int] = {}
    for item in items:
        tests_in[file_of(item)] = tests_in.get(file_of(item), 0) + 1
    rank = {name: i for i, name in enumerate(SLOWEST_FILES)}
    # stable: a file's tests keep their order (module fixtures, tests that build on each other)
    items.sort(key=lambda item: (rank.get(file_of(item), len(rank)), -tests_in[file_of(item)]))


# --- the CLI, as a user runs it ------------------------------------------------------------------------
# Most calls fork from a zygote (tests/_forked_cli.py) that has imported what the verbs import: each CLI process
# otherwise spends 1.3-1.9 CPU-s importing for milliseconds of work, hundreds of times a run.
CLI = "harness.cli.main"
PRELOAD = (
    "harness.cli._app", "harness.rescoring", "harness.app._rescore", "harness.app._analyze", "harness.app._report",
    "harness.app._leaderboard", "harness.app._explain", "envs", "gold_variants", "analysis",
    "conversation_reading", "loophole_ingest", "loophole_scoring", "loophole_store", "loophole_report",
    "policy_model", "pandas", "pyarrow.parquet", "jinja2", "matplotlib.pyplot", "scipy.stats",
)
FRESH_ENV = "HARNESS_TEST_FRESH_CLI"  # =1: every call a fresh process (to compare the two ways)
# The environment and folder the zygote imports in: this process's as conftest set them up, before a test edits
# them (a call that differs where it matters goes fresh, so they must be the common case).
_ZYGOTE_ENV = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
_ZYGOTE_CWD = os.getcwd()
_zygote: list[Any] = []  # the zygote of this process, once started


def _zygote_for(argv: tuple[str, ...]) -> Any:
    """This process's zygote (started on first use), or None where ``argv`` needs a fresh process anyway."""
    from tests._forked_cli import Zygote

    if os.environ.get(FRESH_ENV) == "1":
        return None
    if "-v" in argv or "--verbose" in argv:
        return None  # -v shows what tau2 logs while it is imported, and in the zygote it was imported already
    if _zygote and _zygote[0].process.poll() is not None:
        _zygote.clear()  # ended (an interrupted call kills it): start another
    if not _zygote:
        _zygote.append(Zygote(CLI, PRELOAD, _ZYGOTE_ENV, _ZYGOTE_CWD))
    return _zygote[0]


def pytest_sessionfinish() -> None:
    while _zygote:
        _zygote.pop().close()


@overload
def harness(
    *args: str, timeout: float | None = 900, env: dict[str, str] | None = None, cwd: Path | str | None = None,
    input: str | None = None, patch: str | None = None, fresh: bool = False, background: Literal[False] = False,
) -> subprocess.CompletedProcess[str]: ...


@overload
def harness(
    *args: str, timeout: float | None = 900, env: dict[str, str] | None = None, cwd: Path | str | None = None,
    input: str | None = None, patch: str | None = None, fresh: bool = False, background: Literal[True],
    **popen: Any,
) -> subprocess.Popen[str]: ...


def harness(
    *args: str, timeout: float | None = 900, env: dict[str, str] | None = None, cwd: Path | str | None = None,
    input: str | None = None, patch: str | None = None, fresh: bool = False, background: bool = False,
    **popen: Any,
) -> subprocess.CompletedProcess[str] | subprocess.Popen[str]:
    """``harness ARGS`` as a user runs it, text output captured, exit status and ``subprocess.TimeoutExpired``
    as ``subprocess.run`` gives them; the one way the tests drive the CLI.

    A fresh process (``python -m harness.cli.main``) with ``fresh=True``, ``patch``, ``background=True``,
    ``-v`` (tau2's import-time log lines), ``$HARNESS_TEST_FRESH_CLI=1``, or when the zygote cannot stand in
    for one. Otherwise a fork of this process's zygote (tests/_forked_cli.py), which imported the CLI and what
    its verbs import once: the child takes ``env`` whole, ``cwd``, stdin, and runs the module as ``python -m``
    does, and ends as the interpreter does (atexit, flushes, the exit status or the signal). What it does not
    redo is its imports: a call whose environment differs in a variable they (or the interpreter's start) read,
    or whose folder would import other source, goes fresh by itself. Use ``fresh=True`` where the test is about
    the start: what a command imports, start-up time, the README's commands from a clone. Children share the
    zygote's string hash seed and have it, not this process, as their parent.

    ``env`` is the process's whole environment (default: this one's, without ``$COLUMNS``), ``cwd`` its folder,
    ``input`` its stdin.
    ``patch``: Python run in that process before the CLI (to stand in for a differing node, say).
    ``background=True``: started, not waited for; the ``subprocess.Popen`` (its ``stdout``/``stderr`` piped
    unless ``popen`` says otherwise, ``popen`` passed on: ``start_new_session`` ...)."""
    if env is None:
        # no $COLUMNS unless a test sets it: readline, once loaded in this process, exports its terminal's width
        # to every child, and the CLI honours it (tests/e2e/test_terminal.py sets it)
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if patch is None:
        command = [sys.executable, "-m", CLI, *args]
    else:
        driver = f"{patch}\nimport sys\nsys.argv = ['harness', *{list(args)!r}]\nfrom harness.cli.main import main\nmain()\n"
        command = [sys.executable, "-c", driver]
    if background:
        popen.setdefault("stdout", subprocess.PIPE)
        popen.setdefault("stderr", subprocess.PIPE)
        return subprocess.Popen(command, text=True, env=env, cwd=cwd, **popen)
    folder = os.path.abspath(cwd if cwd is not None else os.getcwd())
    zygote = None if fresh or patch is not None else _zygote_for(args)
    if zygote is not None and zygote.busy.acquire(blocking=False):  # busy: another thread's call is on
        try:
            if zygote.cannot_run(env, folder) is None:
                return zygote.run(args, env, folder, input=input, timeout=timeout, args=command)
        finally:
            zygote.busy.release()
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd, input=input
    )


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is ``pid``, read from /proc; never this process's zygote (``harness``): it is
    the tests' own process, not one the code under test started."""
    ours = {z.process.pid for z in _zygote}
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and int(stat.parent.name) not in ours:
            found.append(int(stat.parent.name))
    return found


def real_run(name: str) -> Path:
    path = REAL_RUNS / name
    if not path.exists():
        pytest.fail(f"{path} is missing: the tests need ../shared/real-runs beside the project")
    return path


@pytest.fixture
def isolated_data(tmp_path, monkeypatch):
    """No $HARNESS_TAU_DATA, an empty cache and no network."""
    monkeypatch.delenv("HARNESS_TAU_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("HARNESS_OFFLINE", "1")
    from envs._tasks import _load

    _load.cache_clear()
    yield tmp_path
    _load.cache_clear()


def reduced_demo_config(output: Path) -> dict:
    """The reduced offline demo (``offline_demo_run``'s, and the README screenshot's: docs/img/regenerate.py):
    the demo's three profiles on loophole and ordinary tasks, both task versions, two trials."""
    import yaml

    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(tasks=["2", "5", "13", "27", "29", "32", "45", "0", "3"], trials=2, output=str(output),
                task_versions=["tau2", "tau3"])
    return demo


@pytest.fixture(scope="session")
def offline_demo_run(tmp_path_factory):
    """A reduced offline demo through ``harness sweep`` (embedded Ray), shared by the e2e tests:
    the demo's three profiles on loophole and ordinary tasks, both task versions, two trials.

    One sweep per test run, not per xdist worker (it takes a minute or more, and four modules use it): the
    first worker to ask runs it into the run's shared temp folder under a file lock and records its outcome;
    the others wait on the lock and read that. The run is read-only to its users (a test that edits one
    copies it first)."""
    import yaml
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the folder the workers of this run share
    tmp = base / "offline-demo-shared"
    outcome = tmp / "outcome.json"
    with FileLock(str(base / "offline-demo.lock")):
        if not outcome.exists():
            tmp.mkdir(exist_ok=True)
            (tmp / "demo.yaml").write_text(yaml.safe_dump(reduced_demo_config(tmp / "demo")))
            ran = harness("sweep", str(tmp / "demo.yaml"))
            outcome.write_text(json.dumps({"args": ran.args, "returncode": ran.returncode,
                                           "stdout": ran.stdout, "stderr": ran.stderr}))
    recorded = json.loads(outcome.read_text())
    proc = subprocess.CompletedProcess(recorded["args"], recorded["returncode"], recorded["stdout"],
                                       recorded["stderr"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    return tmp / "demo", proc


# --- trajectories through tau2's real environment and their scores (the gold-variant and evidence tests) -----

OPENING = "Hello, I need help with my booking."
AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
WHISSLE = "whissle_airline_tau3_1trial.json"


@functools.cache
def _pool() -> Any:
    from envs import DatabasePool

    return DatabasePool()


def enacted(
    domain: str, task_id: str, calls: list[tuple[str, dict]], say: str = "Is there anything else?",
    version: str = "tau2", opening: str = OPENING, told: list[str] | None = None,
) -> Any:
    """A ``SimulationRun``: the opening, the tool calls with their outputs from tau2's real environment (each
    write after the agent lists it and the user says yes), then a closing message.

    The environment runs on a pooled database (loaded once, touched records restored after each use), the
    same mechanism the sweep workers use; a fresh ``db.json`` load per trajectory would only cost time.
    """
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.environment.toolkit import ToolType

    from envs import environment_constructor, load_task_set

    messages: list = [UserMessage(role="user", content=opening)]
    with _pool().database(domain) as db:
        env = environment_constructor(domain)(db=db)
        for i, (name, args) in enumerate(calls):
            tc = ToolCall(id=f"call_{i}", name=name, arguments=copy.deepcopy(args), requestor="assistant")
            if env.tools.tool_type(name) == ToolType.WRITE:  # the policy's conduct: details listed, then a yes
                messages += [AssistantMessage(role="assistant", content=listing([(name, args)])),
                             UserMessage(role="user", content=STRICT_YES)]
            messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[tc]))
            messages.append(env.get_response(tc))
    # What the task requires the agent to tell the user (the COMMUNICATE part of the basis).
    if told is None:
        told = load_task_set(domain, version).task(task_id).evaluation_criteria.communicate_info or []
    messages.append(AssistantMessage(role="assistant", content=" ".join([say, *told])))
    return SimulationRun(
        id=f"t-{task_id}", task_id=task_id, start_time="2025-01-01T00:00:00", end_time="2025-01-01T00:05:00",
        duration=300.0, termination_reason=TerminationReason.AGENT_STOP, messages=messages,
    )


STRICT_YES = "Yes, please go ahead."
STRICT_LISTED = "Here is what I will do, exactly as listed. Shall I proceed?"
# What a listing names of each write: its record, flights, address or amount (``conversation_reading._write_details``
# reads whether the agent named any detail of a write before the yes).
_LISTED_KEYS = ("reservation_id", "order_id", "address1", "amount")


def listing(calls: list[tuple[str, dict]]) -> str:
    """``STRICT_LISTED`` naming the details of ``calls`` (the policy's conduct: list the action, then a yes)."""
    named = [str(args[k]) for _, args in calls for k in _LISTED_KEYS if k in args]
    named += [str(f["flight_number"]) for _, args in calls for f in args.get("flights") or [] if "flight_number" in f]
    return STRICT_LISTED.replace("exactly as listed", f"exactly as listed ({', '.join(named)})") if named else STRICT_LISTED


def conversation(domain: str, task: Any, *turns: Any, ending: bool = True) -> Any:
    """A ``SimulationRun`` for strict: the do-nothing greeting, the user's request, ``turns`` (assistant
    texts; ("user", text); lists of (tool, arguments) run on tau2's environment), then, with ``ending``, the
    goodbye and the user stopping."""
    from tau2.data_model.message import AssistantMessage, ToolCall, UserMessage
    from tau2.data_model.simulation import SimulationRun, TerminationReason

    from envs import engine_for
    from loophole_scoring import DO_NOTHING_GOODBYE, DO_NOTHING_GREETING, DO_NOTHING_USER_DONE

    engine = engine_for(domain)
    messages: list = [AssistantMessage(role="assistant", content=DO_NOTHING_GREETING),
                      UserMessage(role="user", content="I need help with my booking.")]
    n = 0
    for i, turn in enumerate(turns):
        if turn == STRICT_LISTED:  # the listing names the details of the writes that follow it
            turn = listing(next((t for t in turns[i:] if isinstance(t, list)), []))
        if isinstance(turn, str):
            messages.append(AssistantMessage(role="assistant", content=turn))
        elif isinstance(turn, tuple):
            messages.append(UserMessage(role="user", content=turn[1]))
        else:
            calls = []
            for name, arguments in turn:
                calls.append(ToolCall(id=f"call_{n}", name=name, arguments=arguments, requestor="assistant"))
                n += 1
            messages.append(AssistantMessage(role="assistant", content=None, tool_calls=calls))
            messages.extend(engine.respond(calls))
    if ending:
        messages += [AssistantMessage(role="assistant", content=DO_NOTHING_GOODBYE),
                     UserMessage(role="user", content=DO_NOTHING_USER_DONE)]
    return SimulationRun(id="t", task_id=task.id, start_time="x", end_time="x", duration=0.0,
                         termination_reason=TerminationReason.USER_STOP, messages=messages)


def score_in(domain: str, version: str, sim: Any) -> Any:
    """``sim`` scored against its task's gold and the catalog's variants for ``domain`` and ``version``, on the
    conversation's record read once, as scoring reads it."""
    from envs import engine_for, load_task_set
    from gold_variants import variants_for
    from loophole_scoring import score_trajectory, trajectory_record

    task = load_task_set(domain, version).task(sim.task_id)
    engine, variants = engine_for(domain), variants_for(domain, version, sim.task_id)
    record = trajectory_record(sim.messages, domain, version, task, engine, variants)
    return score_trajectory(sim, task, engine, variants=variants, record=record)


def score_airline(sim: Any, version: str) -> Any:
    return score_in("airline", version, sim)


def reading_row(result: Any, gold_id: str) -> Any:
    """The score row of one gold (``"gold"`` or a variant's id) in a scored trajectory."""
    return next(s for s in result.scores if s.gold_id == gold_id)


def airline_variant(version: str, task_id: str, gold_id: str) -> Any:
    from gold_variants import variants_for

    return next(v for v in variants_for("airline", version, task_id) if v.gold_id == gold_id)


@functools.lru_cache(maxsize=2)
def _raw_run(name: str) -> dict:
    return json.loads(real_run(name).read_text())


def read_conversations(name: str) -> list[tuple[list[Any], list[Any]]]:
    """Each simulation of the real run ``name``: its turns as the record reads them (``read_turns``) and its messages."""
    from tau2.data_model.simulation import SimulationRun

    from conversation_reading._evidence import read_turns

    out = []
    for raw in _raw_run(name)["simulations"]:
        messages = list(SimulationRun.model_validate(raw).messages)
        out.append((read_turns(messages), messages))
    return out


def lowered_texts(*names: str) -> Iterator[str]:
    """Every message and sentence of the real runs ``names`` as the record reads them, lowered (as the scans and the
    gates read them)."""
    from conversation_reading._units import split_sentences

    for name in names:
        for turns, _ in read_conversations(name):
            for t in turns:
                for text in (t.text, *split_sentences(t.text)):
                    yield text.lower()


ROUTE_RUNS = ("whissle_airline_tau3_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json",
              "whissle_retail_tau3_5sims.json")  # two airline runs and a retail one: routes, ids and none


def read_sentences(*names: str) -> Iterator[str]:
    """Every turn of the real runs ``names`` as written, as the record reads it, and each of its sentences."""
    from conversation_reading._units import split_sentences

    for name in names:
        for turns, _ in read_conversations(name):
            for t in turns:
                yield from (t.raw, t.text, *split_sentences(t.text))


def normalised_agent_texts(*written: str) -> list[str]:
    """``written``, then every agent text of the shared runs and both dev-corpus sets, normalised as the record reads
    it (the texts the speech gates read)."""
    from conversation_reading._normalise import normalised

    runs = [*sorted(REAL_RUNS.glob("*.json")), *sorted((SHARED / "dev-corpus" / "runs").glob("*.json")),
            *sorted((SHARED / "dev-corpus" / "other-families" / "runs").glob("*"))]
    texts = list(written)
    for path in runs:
        raw = json.loads(path.read_text(encoding="utf-8"))
        texts += [normalised(m["content"])[0] for sim in raw.get("simulations", []) for m in sim["messages"]
                  if m.get("role") == "assistant" and isinstance(m.get("content"), str) and m["content"]]
    return texts


def same_matches(rewritten: re.Pattern[str], plain: re.Pattern[str], text: str, every: int = 0) -> None:
    """A rewritten twin finds what its plain compile finds in ``text`` (every match's spans, groups included) and, every
    ``every`` characters, from inside the text too, where the character before the start counts."""
    assert [m.regs for m in rewritten.finditer(text)] == [m.regs for m in plain.finditer(text)], (plain.pattern, text)
    for pos in range(0, len(text), every) if every else ():
        found, expected = rewritten.search(text, pos), plain.search(text, pos)
        assert (found and found.regs) == (expected and expected.regs), (plain.pattern, text, pos)


def glued(text: str) -> list[str]:
    """``text``, and ``text`` with its spaces made word characters: every word then follows one."""
    return [text, text.replace(" ", "x"), text.replace(" ", "_"), text.replace(" ", "7"), "q" + text]


def real_simulation(name: str, task_id: str) -> Any:
    """A fresh (deep-copied, editable) ``SimulationRun`` of ``task_id`` from the real run ``name``."""
    from tau2.data_model.simulation import SimulationRun

    raw = next(s for s in _raw_run(name)["simulations"] if s["task_id"] == task_id)
    return SimulationRun.model_validate(copy.deepcopy(raw))


# Every gold write that raises on a fresh database, per version and domain: task -> action ids. Data, checked
# against tau2 alone by test_listed_broken_golds_equal_a_tau2_replay. A new one fails test_every_gold_...
BROKEN_GOLDS: dict[tuple[str, str], dict[str, list[str]]] = {
    ("tau2", "airline"): {},
    ("tau2", "retail"): {"12": ["12_4"], "13": ["13_4"], "64": ["64_6"], "105": ["106_0"]},
    ("tau3", "airline"): {},
    ("tau3", "retail"): {"64": ["64_6"], "105": ["106_0"]},
    ("verified", "airline"): {},
    ("verified", "retail"): {"18": ["18_4"], "64": ["64_6"], "91": ["91_1"], "105": ["106_0"]},
}


@pytest.fixture
def no_handed_over_data():
    """Task data a test hands over in memory (``install_payload``) is taken back after it: the handed-over
    task sets name ``<in memory>`` paths, which a later test in the same worker would try to read."""
    from envs._tasks import _PROVIDED, _load

    yield
    _PROVIDED.clear()
    _load.cache_clear()


def rescore_bench() -> types.ModuleType:
    """benchmarks/rescore_bench.py as a module (its budget's targets and step names)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rescore_bench_budget", ROOT / "benchmarks" / "rescore_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def budget_of(out: str) -> dict[str, tuple[float | None, float]]:
    """The benchmark's budget table: each step's (ms, target ms), after checking that every step of the
    contract (#47) is printed once against its own target, the worker's total and the main process included,
    and that each says whether it is within its target. No timing is asserted: timings are the benchmark's."""
    bench = rescore_bench()
    rows = [line.strip("|").split("|") for line in out.splitlines() if line.startswith("| ")]
    table = {cells[0].strip(): [c.strip() for c in cells[1:]] for cells in rows if len(cells) == 4}
    assert table.pop("step") == ["ms", "target ms", "within"], out
    names = [bench.STEP_NAMES.get(step, step) for step in bench.TARGETS_MS]
    targets = [*bench.TARGETS_MS.values(), bench.WORKER_TARGET_MS, bench.MAIN_TARGET_MS]
    assert list(table) == [*names, bench.STEP_NAMES["worker"], bench.STEP_NAMES["main"]], out
    budget: dict[str, tuple[float | None, float]] = {}
    for (name, (ms, target, within)), expected in zip(table.items(), targets, strict=True):
        assert float(target) == expected, name
        measured = None if ms.startswith("n/a") else float(ms)
        assert within == ("-" if measured is None else "yes" if measured <= expected else "OVER"), name
        budget[name] = (measured, expected)
    assert bench.WORKER_TARGET_MS == round(sum(bench.TARGETS_MS.values()), 3)
    return budget
