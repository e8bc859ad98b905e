"""The band single ≤ multi ≤ upper in ``analyze``, ``leaderboard`` and ``report``, and the viewer's list of
uncertain credits with the weaker evidence marked: on a real dev-corpus run that has uncertain credits, and
on the same run with the columns a run written before the three verdicts lacks removed."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from harness import rescore
from tests.conftest import SHARED, harness

GROK_FAST = "2025-10-06T06_45_09.212115_airline_llm_agent_grok-4-fast-reasoning"
# Its uncertain credits, as tests/test_credit_verdicts.py derives them from the conversations (7489c418's in the
# copy below, where the user asks for the transfer: the run's own unasked one is not credited, #40 class 5).
UNCERTAIN = {("09f985e5", "L16.refuse"), ("7489c418", "L3L4.strict")}


def _corpus_file() -> Path:
    found = [p for p in (SHARED / "dev-corpus" / "runs").glob("*.json") if GROK_FAST in p.name]
    if len(found) != 1:
        pytest.fail(f"the dev corpus file {GROK_FAST}* is missing from ../shared/dev-corpus/runs")
    return found[0]


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory) -> Path:
    """The grok-4-fast run with 7489c418's user asking for a supervisor before the agent's transfer (message
    16): the transfer's summary names no clause, so its L3L4.strict credit stays uncertain on weak evidence."""
    data = json.loads(_corpus_file().read_text())
    (sim,) = [s for s in data["simulations"] if s["id"].startswith("7489c418")]
    sim["messages"][15]["content"] += " Can I talk to a supervisor?"
    out = tmp_path_factory.mktemp("band-corpus") / _corpus_file().name
    out.write_text(json.dumps(data))
    return out


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory, corpus_file: Path) -> Path:
    out = tmp_path_factory.mktemp("band") / "grok"
    rescore([corpus_file], out)  # in process (the Python API of the same verb): the tests read its rows
    return out


@pytest.fixture(scope="module")
def old_run_dir(run_dir: Path, tmp_path_factory) -> Path:
    """The same run as one written before the three verdicts: no ``multi_gold_upper``, no ``verdict``."""
    old = tmp_path_factory.mktemp("band-old") / "grok-old"
    shutil.copytree(run_dir, old)
    for table, column in (("trials", "multi_gold_upper"), ("scores", "verdict")):
        path = old / f"{table}.parquet"
        t = pq.read_table(path)
        assert column in t.column_names, f"{path} has no {column}: the fixture no longer matches the store"
        pq.write_table(t.drop_columns([column]), path)
    return old


def _trials(run: Path) -> pd.DataFrame:
    import loophole_store as store

    return store.read_table(run, "trials")


def _band(df: pd.DataFrame) -> tuple[float, float, float]:
    def rate(col: str) -> float:
        return float((df[col] >= 1 - 1e-6).mean())

    return rate("reward"), rate("multi_gold_reward"), rate("multi_gold_upper")


def _strict_rate(df: pd.DataFrame) -> float:
    return float((df["strict_reward"] >= 1 - 1e-6).mean())


def test_the_rescored_run_has_a_band_wider_than_multi_gold(run_dir: Path) -> None:
    trials, scores = _trials(run_dir), _scores(run_dir)
    single, multi, upper = _band(trials[trials.reward.notna()])
    assert single <= multi < upper, (single, multi, upper)
    uncertain = {(s[:8], g) for s, g in scores[scores.verdict == "uncertain"][["simulation_id", "gold_id"]].itertuples(index=False)}
    assert UNCERTAIN <= uncertain


def _scores(run: Path) -> pd.DataFrame:
    import loophole_store as store

    scores = store.read_table(run, "scores")
    sims = _trials(run)[["trajectory_id", "simulation_id"]]
    return scores.merge(sims, on="trajectory_id")


def test_analyze_prints_the_band_per_agent(run_dir: Path) -> None:
    single, multi, upper = _band(_trials(run_dir).query("reward.notna()"))
    proc = harness("analyze", str(run_dir), "--bootstrap", "100")
    assert proc.returncode == 0, proc.stderr
    assert "band" in proc.stdout
    assert f"{single:.1%} ≤ {multi:.1%} ≤ {upper:.1%}" in proc.stdout, proc.stdout[-3000:]


def test_leaderboard_shows_the_band(tmp_path: Path, corpus_file: Path) -> None:
    out = tmp_path / "board"
    proc = harness("leaderboard", str(corpus_file), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    board = pd.read_parquet(out / "leaderboard.parquet")
    (row,) = board.itertuples(index=False)
    assert row.single_pass1 <= row.multi_pass1 < row.upper_pass1
    assert row.uncertain == len(UNCERTAIN)
    text = f"{row.single_pass1:.1%} ≤ {row.multi_pass1:.1%} ≤ {row.upper_pass1:.1%}"
    assert row.band == text
    assert text in (out / "leaderboard.md").read_text()
    assert text in proc.stdout


def test_report_shows_the_band(run_dir: Path, tmp_path: Path) -> None:
    scored = _trials(run_dir).query("reward.notna()")
    single, multi, upper = _band(scored)
    strict = _strict_rate(scored)
    out = tmp_path / "report.html"
    proc = harness("report", str(run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    page = out.read_text()
    assert "Band: strict ≤ single ≤ multi ≤ upper" in page
    assert f"{strict:.1%} ≤ {single:.1%} ≤ {multi:.1%} ≤ {upper:.1%}" in page, "the band's figures are not in the report"


class _Rows(HTMLParser):
    """The rows of one table (by id) as lists of cell texts, and the links in them."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.inside, self.rows, self.links = table_id, False, [], []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == self.table_id:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag == "td":
            self._cell = []
        elif self.inside and tag == "a":
            self.links.append(a.get("href"))

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _uncertain_rows(site: Path) -> _Rows:
    p = _Rows("uncertain-credits")
    p.feed((site / "index.html").read_text())
    return p


def test_viewer_lists_every_uncertain_credit_with_the_weaker_evidence_marked(run_dir: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    proc = harness("view", str(run_dir), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    index = (site / "index.html").read_text()
    assert "Uncertain credits (for a reader)" in index
    rows = _uncertain_rows(site)
    listed = {(r[5][:8], r[6]) for r in rows.rows if r}
    scores = _scores(run_dir)
    every = {(s[:8], g) for s, g in scores[scores.verdict == "uncertain"][["simulation_id", "gold_id"]].itertuples(index=False)}
    assert listed == every and UNCERTAIN <= listed
    assert all(r[7] for r in rows.rows if r), "an uncertain credit is listed without why"
    # Each listed credit links to its gold's section, which says it is uncertain; the strict reading's weak
    # evidence (a transfer summary with no clause) is marked in the list and on the trial page.
    strict = next(r for r in rows.rows if r and r[6] == "L3L4.strict" and r[5].startswith("7489c418"))
    assert int(strict[8]) >= 1
    for href in rows.links:
        page_name, anchor = href.split("#")
        page = (site / page_name).read_text()
        assert f'id="{anchor}"' in page
        section = page[page.index(f'id="{anchor}"'):]
        section = section[: section.index("</section>")]
        assert 'class="uncertain"' in section and "Uncertain: the outcome matches this reading" in section
    strict_page = (site / next(h for h in rows.links if "gold-L3L4.strict" in h).split("#")[0]).read_text()
    assert re.search(r'class="weak-evidence">weaker than the rule asks', strict_page)
    assert re.search(r'class="badge weak-evidence">evidence for L3L4\.strict: [^<]*\(weaker than the rule asks\)', strict_page)


def test_a_run_written_before_the_three_verdicts_reads_as_no_uncertain_credit(old_run_dir: Path, tmp_path: Path) -> None:
    trials = _trials(old_run_dir)
    assert trials.multi_gold_upper.isna().all()  # the store reads an old run's missing column as nulls
    assert _scores(old_run_dir).verdict.isna().all()
    proc = harness("analyze", str(old_run_dir), "--bootstrap", "100")
    assert proc.returncode == 0, proc.stderr
    scored = trials[trials.reward.notna()]
    single = float((scored.reward >= 1 - 1e-6).mean())
    multi = float((scored.multi_gold_reward >= 1 - 1e-6).mean())
    assert f"{single:.1%} ≤ {multi:.1%} ≤ {multi:.1%}" in proc.stdout
    site = tmp_path / "site"
    proc = harness("view", str(old_run_dir), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    assert _uncertain_rows(site).rows == []
    assert "No credit in this run is uncertain" in (site / "index.html").read_text()
    out = tmp_path / "report.html"
    proc = harness("report", str(old_run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"{single:.1%} ≤ {multi:.1%} ≤ {multi:.1%}" in out.read_text()
