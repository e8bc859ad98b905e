"""``harness analyze``, ``harness report`` and ``harness view`` on a rescored real run and on an offline sweep.

The report and the viewer are loaded in headless Chromium (Debian's chromium package, installed by .ci/run)
through Playwright, one browser for the module: filters, links, evidence, escaping, console errors.
Screenshots of the index, a trial page and the report land in runs/screenshots/.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conversation_reading import EXPLANATION_SCHEMA_VERSION
from harness import rescore
from loophole_report._report import SECTIONS
from tests.conftest import ROOT, harness, real_run

SHOTS = ROOT / "runs" / "screenshots"
AIRLINE_LOOPHOLE_TASKS = {"2", "5", "13", "27", "29", "32", "45"}  # the paper's Table 1, written by hand
HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'



# --- runs ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_run_dir(tmp_path_factory) -> Path:
    """The real aide run rescored; each flip gets an explanation (as the scoring side writes it) pointing at
    a real agent message, unless the rescore wrote one already; and a run.json."""
    out = tmp_path_factory.mktemp("real") / "aide"
    # in process (the Python API of the same verb; its CLI is tests/e2e/test_rescore_cli.py's): this module's
    # point is analyze, report and view
    rescore([real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json")], out)
    _explain_flips(out)
    if not (out / "run.json").exists():
        (out / "run.json").write_text(
            json.dumps({"harness_version": "0.1.0", "judge": {"kind": "none"}})
        )
    return out


def _explain_flips(run_dir: Path) -> None:
    trials = pd.read_parquet(run_dir / "trials.parquet")
    table = pq.read_table(run_dir / "scores.parquet")
    scores = table.to_pandas()
    if "explanation_json" in scores and scores.explanation_json.notna().any():
        return  # the scoring side explains its credits: test what it wrote
    messages = {t.trajectory_id: json.loads(t.messages_json) for t in trials.itertuples()}
    flips = set(trials[(trials.reward == 0) & (trials.multi_gold_reward == 1)].trajectory_id)
    assert flips, "the real run has flips (tasks 2, 27, 38 credited by L3L4.strict; 33, 35 by task-report variants)"
    values = []
    for s in scores.itertuples():
        if s.trajectory_id in flips and s.gold_id != "gold" and s.reward == 1:
            index, m = next(
                (i, m)
                for i, m in enumerate(messages[s.trajectory_id])
                if m["role"] == "assistant" and m.get("content") and len(m["content"]) > 30
            )
            values.append(
                json.dumps(
                    {
                        "schema_version": EXPLANATION_SCHEMA_VERSION,
                        "gold_id": s.gold_id,
                        "preconditions": [
                            {
                                "name": "reservation_found",
                                "held": True,
                                "detail": "the user has the reservation",
                            }
                        ],
                        "evidence": [
                            {
                                "message_index": index,
                                "role": "assistant",
                                "excerpt": m["content"][5:45],
                                "tool_call": None,
                                "what": "the agent states the reading's decision",
                            }
                        ],
                    }
                )
            )
        else:
            values.append(None)
    table = table.drop_columns([c for c in ["explanation_json"] if c in table.column_names])
    pq.write_table(
        table.append_column("explanation_json", pa.array(values, pa.string())),
        run_dir / "scores.parquet",
    )


@pytest.fixture(scope="module")
def offline_run_dir(offline_demo_run, tmp_path_factory) -> Path:
    """A copy of the shared offline demo run (so it can be changed): one user message made hostile."""
    run = tmp_path_factory.mktemp("offline") / "demo"
    run.mkdir()
    for name in ("trials.parquet", "scores.parquet", "sweep.json"):
        shutil.copy(offline_demo_run[0] / name, run / name)
    trials = pd.read_parquet(run / "trials.parquet")
    msgs = json.loads(trials.messages_json.iloc[0])
    first_user = next(i for i, m in enumerate(msgs) if m["role"] == "user")
    msgs[first_user]["content"] = HOSTILE + " " + msgs[first_user]["content"]
    trials.loc[0, "messages_json"] = json.dumps(msgs)
    pq.write_table(pa.Table.from_pandas(trials, preserve_index=False), run / "trials.parquet")
    return run


@pytest.fixture(scope="module")
def built(real_run_dir, offline_run_dir, tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """``harness report`` (which builds the viewer beside it) for both runs: {which: (report, viewer)}."""
    out = {}
    for which, run in (("real", real_run_dir), ("offline", offline_run_dir)):
        where = tmp_path_factory.mktemp(f"report-{which}")
        proc = harness(
            "report",
            str(run),
            "--out",
            str(where / "report.html"),
            "--viewer",
            str(where / "viewer"),
        )
        assert proc.returncode == 0, proc.stderr
        out[which] = (where / "report.html", where / "viewer")
    return out


def _shot(pg, name: str, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / name), full_page=full_page)


def _shown(pg) -> int:
    visible = pg.locator("#trials tbody tr:visible").count()
    assert int(pg.inner_text("#shown")) == visible
    return visible


# --- links, parsed from the files ----------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if a.get("id"):
            self.ids.add(a["id"])


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text())
    return p


def _broken_links(pages: list[Path]) -> list[str]:
    """Every href of these pages must name an existing file, and a fragment an element id there (the
    index's filter fragments excepted: they are queries its script reads)."""
    parsed: dict[Path, _Links] = {}
    broken = []
    for path in pages:
        for href in _parse(path).hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                broken.append(f"{path.name}: external link {href}")
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_file():
                broken.append(f"{path.name}: {href} (no file)")
                continue
            if parts.fragment and target.name != "index.html":
                ids = parsed.setdefault(target, _parse(target)).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{path.name}: {href} (no element #{parts.fragment})")
    return broken


# --- analyze -------------------------------------------------------------------------------------


def test_analyze_real_run_degrades_gracefully(real_run_dir, tmp_path):
    proc = harness("analyze", str(real_run_dir), "--out", str(tmp_path / "tables"))
    assert proc.returncode == 0, proc.stderr
    assert "one trial per agent and task" in proc.stdout and "one agent" in proc.stdout
    assert "one trial per cell: variance undefined" in proc.stdout  # said, not a made-up 0
    assert set(pd.read_parquet(tmp_path / "tables" / "pass_k.parquet").k) == {1}
    # the gap CI resamples trials (50 per agent here), so it exists; counts are reported with it
    gap = pd.read_parquet(tmp_path / "tables" / "loophole_gap_single.parquet")
    assert (gap.loophole_trials == 9).all() and (gap.non_loophole_trials == 41).all()  # 2 5 13 14 27 29 32 38 45
    assert (tmp_path / "tables" / "success.csv").exists()


def _printed(stdout: str, title: str) -> list[list[str]]:
    """The body rows of the table ``harness analyze`` printed under ``title`` (rich's box drawing)."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == title)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("└"):
            return rows
        if line.startswith("│"):
            rows.append([cell.strip() for cell in line.strip("│").split("│")])
    raise AssertionError(f"table {title} not closed")


def test_analyze_offline_sweep(offline_run_dir, tmp_path):
    """The figures ``harness analyze`` prints and writes, against the same figures counted by hand from the
    run's trials.parquet (pyarrow rows, the paper's loophole tasks, tau2's pass^k estimator C(c,k)/C(n,k))."""
    from math import comb

    proc = harness("analyze", str(offline_run_dir), "--out", str(tmp_path / "tables"))
    assert proc.returncode == 0, proc.stderr
    rows = pq.read_table(offline_run_dir / "trials.parquet").to_pylist()
    assert {r["domain"] for r in rows} == {"airline"} and not any(r["flags"] for r in rows)
    agents = sorted({r["agent_name"] for r in rows})
    assert len(agents) == 3

    def rate(rs: list[dict], column: str) -> float:
        return sum(r[column] for r in rs) / len(rs)

    expected = []
    for agent in agents:
        mine = [r for r in rows if r["agent_name"] == agent and r["reward"] is not None]
        lo = [r for r in mine if r["task_id"] in AIRLINE_LOOPHOLE_TASKS]
        non = [r for r in mine if r["task_id"] not in AIRLINE_LOOPHOLE_TASKS]
        unscored = sum(r["agent_name"] == agent and r["reward"] is None for r in rows)
        expected.append([agent, len(mine), rate(mine, "reward"), rate(mine, "multi_gold_reward"), len(lo),
                         rate(lo, "reward"), rate(lo, "multi_gold_reward"), rate(non, "reward"),
                         rate(non, "multi_gold_reward"), unscored])
    assert len(expected) == 3 and all(e[1] > e[4] > 0 for e in expected)
    shown = [[v if isinstance(v, str) else f"{v:.1%}" if isinstance(v, float) else str(v) for v in e]  # rates in percent
             for e in expected]
    assert _printed(proc.stdout, "success") == shown
    written = pd.read_csv(tmp_path / "tables" / "success.csv")
    assert list(written.agent) == agents
    assert written.drop(columns="agent").values.tolist() == [pytest.approx(e[1:]) for e in expected]

    # pass^k per agent and task version, for k up to the fewest trials of a task
    expected_k = []
    for agent in agents:
        for version in sorted({r["task_version"] for r in rows}):
            cells: dict[str, list[float]] = {}
            for r in rows:
                if r["agent_name"] == agent and r["task_version"] == version and r["reward"] is not None:
                    cells.setdefault(r["task_id"], []).append(r["reward"])
            for k in range(1, min(map(len, cells.values())) + 1):
                hat = [comb(int(sum(c)), k) / comb(len(c), k) for c in cells.values()]
                expected_k.append([agent, "airline", version, str(k), str(len(cells)), f"{sum(hat) / len(hat):.1%}"])
    assert len(expected_k) == 3 * 2 * 2  # three agents, two task versions, two trials per task
    assert [row[:6] for row in _printed(proc.stdout, "pass_k")] == expected_k
    assert "versions" in proc.stdout and "ci_low" in proc.stdout


def test_analyze_bad_dir(tmp_path):
    proc = harness("analyze", str(tmp_path))
    assert proc.returncode == 2 and "no trials.parquet" in proc.stderr


# --- the report ----------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["real", "offline"])
def test_report_in_chromium(which, built, page):
    report, viewer = built[which]
    text = report.read_text()
    assert "sk-" not in text and 'api_key": "s' not in text
    page.goto(report.as_uri())
    page.wait_for_function("document.body.hasAttribute('data-images')")
    headings = page.locator("section > h2").all_inner_texts()
    left_out = page.locator("#left-out li").all_inner_texts()
    # every section in the paper's order; one with nothing but its reason is listed, with it, at the end
    assert [h for h in headings if h != "Sections left out of this report"] == [
        title for _, title in SECTIONS if not any(x.startswith(f"{title}: ") for x in left_out)]
    assert len(headings) - ("Sections left out of this report" in headings) + len(left_out) == len(SECTIONS)
    images = int(page.get_attribute("body", "data-images"))
    assert images >= 2 and page.get_attribute("body", "data-broken-images") == "0"
    assert page.locator("figure figcaption").count() == images  # a caption under every figure
    for raw in ("non_loophole_multi", "loophole_trials", "agent_name", "single_rate"):
        assert raw not in page.inner_text("body"), raw  # human column names only
    assert _broken_links([report]) == []
    if (
        which == "real"
    ):  # one trial per task: undefined statistics are one line each, not empty tables
        undefined = page.locator("p.undefined").all_inner_texts() + page.locator("#left-out li").all_inner_texts()
        assert any("variance is undefined" in u for u in undefined)
        assert any("pass^k for k ≥ 2 is undefined" in u for u in undefined)
        assert page.locator("#variance table").count() == 0
    else:
        tasks = [int(t) for t in page.locator("#split tbody tr td:nth-child(3)").all_inner_texts()]
        versions = page.locator("#split tbody tr td:nth-child(2)").all_inner_texts()
        for v in set(versions):
            mine = [t for t, w in zip(tasks, versions, strict=True) if w == v]
            assert mine == sorted(mine) and len(mine) > 2  # 13 after 2
        _shot(page, "report.png")
    assert page.problems == []


def test_report_provenance_from_run_json(real_run_dir, built, page, tmp_path):
    report, _ = built["real"]
    page.goto(report.as_uri())
    provenance = page.inner_text("#provenance")
    # each field a rescore records, under the label a reader sees (written here, not by the report's code)
    labels = {
        "kind": "kind", "harness_version": "harness version", "git_revision": "git revision",
        "tau2_version": "tau2 version", "task_versions": "task versions (commits)",
        "task_data_sha256": "task data (sha256)", "catalog_sha256": "gold-variant catalog (sha256)",
        "judge": "judge", "source_sha256": "source files (sha256)", "custom_tasks_sha256": "custom tasks (sha256)",
        "written_at": "written at", "history": "earlier provenance", "replay": "replay (lenient: tau2 1.0.1",
    }
    recorded = json.loads((real_run_dir / "run.json").read_text())
    assert set(recorded) == set(labels)
    for key, label in labels.items():
        assert label in provenance, key
    for raw, label in (("git_revision", "git revision"), ("harness_version", "harness version"),
                       ("written_at", "written at")):  # readable labels, not run.json's keys
        assert label in provenance and raw not in provenance
    # any run.json is rendered key by key, nested, and a secret-bearing field is redacted
    run = tmp_path / "run"
    run.mkdir()
    for name in ("trials.parquet", "scores.parquet"):
        shutil.copy(real_run_dir / name, run / name)
    (run / "run.json").write_text(
        json.dumps(
            {
                "tau2_version": "26.3",
                "task_data": {"tau2/airline/tasks.json": "ab12"},
                "judge": {"model": "m", "api_key": "sk-test-secret"},
            }
        )
    )
    proc = harness("report", str(run), "--out", str(tmp_path / "report.html"))
    assert proc.returncode == 0, proc.stderr
    assert "sk-test-secret" not in (tmp_path / "report.html").read_text()
    page.goto((tmp_path / "report.html").as_uri())
    rows = page.locator("#provenance table.kv th").all_inner_texts()
    assert rows == [
        "tau2 version",
        "task data",
        "tau2/airline/tasks.json",
        "judge",
        "model",
        "api_key",
    ]
    assert "ab12" in page.inner_text("#provenance") and "***" in page.inner_text("#provenance")
    assert page.problems == []


@pytest.mark.parametrize("which", ["real", "offline"])
def test_every_count_in_the_report_opens_its_trials(which, built, page):
    """Each count in the report links to the viewer's index filtered to exactly the trials it counts."""
    report, viewer = built[which]
    links = [(href, text) for href, text in _count_links(report) if "index.html" in href]
    assert len(links) >= 5
    page.goto((viewer / "index.html").as_uri())
    for href, text in links:
        fragment = href.split("#", 1)[1] if "#" in href else ""
        page.evaluate("h => { history.replaceState(null, '', '#' + h); readHash(); }", fragment)
        expected = int(text.split("/")[-1])  # "1/2": the link opens the cell's two trials
        assert _shown(page) == expected, (href, text)
    assert page.problems == []


def _count_links(report: Path) -> list[tuple[str, str]]:
    found = re.findall(r'<a href="([^"]+)">([0-9/]+)</a>', report.read_text())
    return [(h.replace("&amp;", "&"), t) for h, t in found]


# --- the viewer ----------------------------------------------------------------------------------


def test_index_filters_change_visible_rows(built, offline_run_dir, page):
    _, viewer = built["offline"]
    trials = pd.read_parquet(offline_run_dir / "trials.parquet")
    page.goto((viewer / "index.html").as_uri())
    assert _shown(page) == len(trials)
    page.select_option("#f-agent", "creative")
    assert _shown(page) == (trials.agent_name == "creative").sum()
    page.select_option("#f-task", "13")
    assert _shown(page) == ((trials.agent_name == "creative") & (trials.task_id == "13")).sum() == 4
    assert "agent=creative" in page.evaluate("location.hash") and "task=13" in page.evaluate(
        "location.hash"
    )
    page.select_option("#f-task", "")
    page.check("#f-flips")
    flips = trials[
        (trials.agent_name == "creative") & (trials.reward == 0) & (trials.multi_gold_reward == 1)
    ]
    assert _shown(page) == len(flips) > 0
    page.uncheck("#f-flips")
    page.select_option("#f-version", "tau3")
    page.select_option("#f-single", "fail")
    assert (
        _shown(page)
        == (
            (trials.agent_name == "creative")
            & (trials.task_version == "tau3")
            & (trials.reward == 0)
        ).sum()
    )
    page.click("#f-clear")
    page.check("#f-loophole")
    on_loophole_tasks = (trials.task_id.isin(AIRLINE_LOOPHOLE_TASKS) & (trials.domain == "airline")).sum()
    assert _shown(page) == on_loophole_tasks < len(trials)
    _shot(page, "index.png")
    page.reload()  # the filters live in the hash: a reload (or a link) restores them
    assert page.is_checked("#f-loophole") and _shown(page) == on_loophole_tasks
    assert page.problems == []


def test_flip_page_shows_its_evidence(built, real_run_dir, page):
    _, viewer = built["real"]
    page.goto((viewer / "index.html").as_uri())
    page.check("#f-flips")
    # a flip is a trial the single gold fails and multi-gold credits: counted from the run's own table
    trials = pd.read_parquet(real_run_dir / "trials.parquet", columns=["reward", "multi_gold_reward"])
    flips = int(((trials.reward == 0) & (trials.multi_gold_reward == 1)).sum())
    assert flips >= 2 and _shown(page) == flips  # aide: 2 (strict reading), 35 (C35)
    page.locator("#trials tbody tr:visible a").first.click()
    page.wait_for_load_state()
    assert "flip" in page.inner_text("h1 + p")
    scores = pd.read_parquet(real_run_dir / "scores.parquet")
    task = page.inner_text("h1").split()[1]
    credited = scores[
        (scores.task_id == task)
        & (scores.gold_id != "gold")
        & (scores.reward == 1)
        & scores.explanation_json.notna()
    ]
    exp = json.loads(credited.explanation_json.iloc[0])
    ev = exp["evidence"][0]
    assert ev["excerpt"] in page.locator("ul.evidence q.excerpt").first.inner_text()
    message = page.locator(f"#m{ev['message_index']}")
    assert "evidence" in message.get_attribute("class")
    assert message.locator("mark").first.inner_text() == ev["excerpt"]  # marked in the conversation
    for pre in exp["preconditions"]:  # L3L4.strict has none: its decline is its evidence
        assert pre["name"] in page.inner_text("ul.pre")
    _shot(page, "trial.png")
    assert page.problems == []


def test_a_script_in_a_message_renders_as_text(built, offline_run_dir, page):
    _, viewer = built["offline"]
    from loophole_report._links import page_name

    first = pd.read_parquet(offline_run_dir / "trials.parquet").trajectory_id.iloc[0]
    page.goto((viewer / page_name(first)).as_uri())
    assert page.evaluate("window.__pwned") is None
    assert HOSTILE in page.inner_text("body")
    assert page.problems == []


@pytest.mark.parametrize("which", ["real", "offline"])
def test_every_viewer_page_loads_clean_and_fast(which, built, page):
    _, viewer = built[which]
    pages = [viewer / "index.html", *sorted((viewer / "t").glob("*.html"))]
    assert _broken_links(pages) == []
    slowest = 0.0
    largest = sorted(pages[1:], key=lambda p: p.stat().st_size, reverse=True)[:25]
    for path in [pages[0], *largest]:  # the index and the 25 largest trial pages in the browser
        started = time.perf_counter()
        page.goto(path.as_uri())
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 5, (
        slowest
    )  # generous for a shared CI machine; the benchmark measures it properly
    assert page.problems == []


def _airline_db_after(calls: list[tuple[str, dict]]) -> dict:
    """tau2's own airline environment on a fresh database after ``calls``: the database as plain data."""
    from tau2.data_model.message import ToolCall
    from tau2.domains.airline.environment import get_environment

    env = get_environment()
    for i, (name, arguments) in enumerate(calls):
        env.get_response(ToolCall(id=f"c{i}", name=name, arguments=arguments, requestor="assistant"))
    return env.tools.db.model_dump()


def test_failing_gold_shows_the_records_that_differ(real_run_dir, built):
    """The records listed for a failing single gold are exactly those that differ between tau2's own
    environment after the gold's actions and after the agent's tool calls (not our replay engine)."""
    from envs import load_task_set
    from loophole_report._links import page_name

    _, viewer = built["real"]
    trials = pd.read_parquet(real_run_dir / "trials.parquet")
    scores = pd.read_parquet(real_run_dir / "scores.parquet")
    failing = scores[(scores.gold_id == "gold") & (scores.db_match == False)]  # noqa: E712
    assert len(failing) >= 3
    for s in failing.head(3).itertuples():
        row = trials.set_index("trajectory_id").loc[s.trajectory_id]
        task = load_task_set("airline", "tau2").task(s.task_id)
        gold = _airline_db_after([(a.name, a.arguments) for a in task.evaluation_criteria.actions])
        calls = [(c["name"], c["arguments"]) for m in json.loads(row.messages_json)
                 if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        mine = _airline_db_after(calls)
        expected = sorted(
            f"{table}/{key}" for table in gold for key in gold[table].keys() | mine[table].keys()
            if gold[table].get(key) != mine[table].get(key)
        )
        assert expected, s.trajectory_id
        text = (viewer / page_name(s.trajectory_id)).read_text()
        section = text.split('id="gold-gold"', 1)[1].split("</section>", 1)[0]
        assert re.findall(r"Record <code>([^<]+)</code> differs", section) == expected
    comm = scores[(scores.gold_id == "gold") & (scores.communicate < 1)]
    assert len(comm) == 1
    task = load_task_set("airline", "tau2").task(comm.task_id.iloc[0])
    text = (viewer / page_name(comm.trajectory_id.iloc[0])).read_text()
    assert "Communicate items the agent never said" in text
    assert any(
        f"<li>{html.escape(info)}</li>" in text
        for info in task.evaluation_criteria.communicate_info
    )


def test_view_cli(real_run_dir, tmp_path):
    proc = harness("view", str(tmp_path / "nothing"))
    assert (
        proc.returncode == 2
        and proc.stderr.startswith("error:")
        and "no trials.parquet" in proc.stderr
    )
    served = harness(
        "view", str(real_run_dir), "--out", str(tmp_path / "site"), "--serve", "--port", "0",
        background=True, stderr=None,
    )
    try:
        line = ""
        while "serving" not in line:
            line = served.stdout.readline()
            assert line, "the server stopped before serving"
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        import urllib.request

        with urllib.request.urlopen(url + "index.html", timeout=10) as response:
            assert response.status == 200 and b"Trials: aide" in response.read()
    finally:
        served.terminate()
        served.wait(timeout=10)


def test_cross_version_rescoring_moves(tmp_path):
    whissle = real_run("whissle_airline_tau3_1trial.json")
    as_tau3, as_tau2 = tmp_path / "t3", tmp_path / "t2"
    rescore([whissle], as_tau3)  # in process (the Python API of the same verb): the test's point is analyze's
    rescore([whissle], as_tau2, task_version="tau2")
    proc = harness(
        "analyze", str(as_tau3), "--against", str(as_tau2), "--out", str(tmp_path / "tables")
    )
    assert proc.returncode == 0, proc.stderr

    moves = pd.read_parquet(tmp_path / "tables" / "cross_version.parquet")
    assert (
        moves.trajectories.sum() == 50
        and set(moves.version_a) == {"tau3"}
        and set(moves.version_b) == {"tau2"}
    )
    changed = moves[(moves.rise > 0) | (moves.fall > 0)]
    assert len(changed) >= 1  # tau3 changed golds: some verdicts move
    from envs import diff_versions

    assert set(changed.task_id) <= set(
        diff_versions("airline").changed_ids
    )  # only on tasks tau3 changed
