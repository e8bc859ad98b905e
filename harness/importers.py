"""Read ``tau2 run`` results files in every layout tau2 writes, one simulation at a time.

Layouts (see README "Rescoring"): a monolithic JSON object with ``info``, ``tasks`` and ``simulations``
(flat, or ``<run>/results.json``), and the dir layout (``<run>/results.json`` without simulations plus
``simulation_index``, and ``<run>/simulations/<id>.json``). Files are untrusted data: parsed with a strict
JSON decoder (no duplicate keys, no NaN/Infinity, valid UTF-8), streamed so that memory stays bounded, and
validated with tau2's pydantic models. Fields that newer tau2 versions add are ignored; fields older
versions lack take tau2's defaults.
"""

from __future__ import annotations

import codecs
import errno
import glob
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import Task

from envs import DOMAINS, TASK_VERSIONS, TauDataError, load_task_set
from harness.errors import HarnessInputError

CUSTOM = "custom"  # task_version of a file whose embedded tasks match neither pinned version
COMPLETED = ("agent_stop", "user_stop")
# tau2 1.0's termination reasons; the pinned package knows only some of them.
V1_TERMINATION_REASONS = (
    "user_stop",
    "agent_stop",
    "max_steps",
    "timeout",
    "too_many_errors",
    "agent_error",
    "user_error",
    "infrastructure_error",
    "context_window_exceeded",
    "unexpected_error",
)
_PINNED_REASONS = {r.value for r in TerminationReason}
INFRA_ERROR = "infrastructure_error"


def shown(path: object) -> str:
    """A path as it may appear in a one-line message: ``repr`` when it holds control or odd characters."""
    text = str(path)
    return text if text.isprintable() else repr(text)


# --- finding results files -----------------------------------------------------------------------


@dataclass
class FoundSources:
    sources: list[Path]  # a monolithic file, or the folder of a dir-layout run
    notes: list[str] = field(default_factory=list)  # skipped paths (FIFOs, sockets, devices)


def _is_dir_run(folder: Path) -> bool:
    return (folder / "results.json").is_file() and (folder / "simulations").is_dir()


def _kind(path: Path) -> str:
    """'file', 'dir', 'missing' or 'other' (FIFO, socket, device); a symlink loop is an error."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise HarnessInputError(f"{shown(path)}: symlink loop") from None
        return "missing"  # absent, or a dangling link
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    return "other"


def _walk(root: Path, found: FoundSources) -> None:
    """Results files under ``root``, recursively; dir-layout runs are taken whole. Symlinked folders are
    followed once; a folder reached again through a link is a symlink loop."""
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        st = folder.stat()
        if (st.st_dev, st.st_ino) in seen:
            raise HarnessInputError(
                f"{shown(folder)}: symlink loop (a folder that contains itself)"
            )
        seen.add((st.st_dev, st.st_ino))
        if _is_dir_run(folder):
            found.sources.append(folder)
            continue
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            raise HarnessInputError(
                f"{shown(folder)}: cannot list folder ({exc.strerror})"
            ) from None
        subfolders = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            kind = _kind(path)
            if kind == "dir":
                subfolders.append(path)
            elif entry.name.endswith(".json"):
                if kind == "file":
                    found.sources.append(path)
                elif kind == "other":
                    found.notes.append(f"{shown(path)}: skipped (not a regular file)")
        stack += reversed(subfolders)


def find_sources(paths: list[str]) -> FoundSources:
    """Files, folders (searched recursively) and globs, in a stable order without repeats."""
    found = FoundSources([])
    for spec in paths:
        p = Path(spec)
        kind = _kind(p)
        if kind == "missing":
            matches = sorted(glob.glob(spec, recursive=True))
            if not matches or not any(ch in spec for ch in "*?["):
                raise HarnessInputError(f"{shown(spec)}: no such file, directory or glob match")
            candidates = [Path(m) for m in matches]
        else:
            candidates = [p]
        for c in candidates:
            kind = _kind(c)
            if kind == "dir":
                _walk(c, found)
            elif kind == "file":
                if c.name == "results.json" and _is_dir_run(c.parent):
                    found.sources.append(c.parent)
                else:
                    found.sources.append(c)
            elif kind == "other":
                if c is p:
                    raise HarnessInputError(f"{shown(c)}: not a regular file")
                found.notes.append(f"{shown(c)}: skipped (not a regular file)")
    found.sources = list(dict.fromkeys(s.resolve() for s in found.sources))
    if not found.sources:
        raise HarnessInputError(f"{shown(' '.join(paths))}: no results files found")
    return found


def expand_paths(paths: list[str]) -> list[Path]:
    return find_sources(paths).sources


# --- strict, streaming JSON ---------------------------------------------------------------------


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise _Duplicate(f"duplicate key {dup!r}")
    return out


def _no_constant(name: str) -> object:
    raise _Duplicate(f"non-finite number {name} (not JSON)")


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
_WS = re.compile(r"[ \t\n\r]*")
# A \uD800-\uDFFF escape that is not part of a surrogate pair: JSON allows it, UTF-8 cannot hold it.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate escape in a JSON text, if any (a pair, or an escaped backslash, is fine)."""
    paired_low = -1
    for m in _SURROGATE_ESCAPE.finditer(text):
        start = m.start()
        if start == paired_low:
            continue
        k = start
        while k > 0 and text[k - 1] == "\\":
            k -= 1
        if (start - k) % 2:
            continue  # "\\ud800": an escaped backslash, then plain text
        high = text[start + 3] in "89abAB"
        if high and _SURROGATE_ESCAPE.match(text, m.end()) and text[m.end() + 3] in "cdefCDEF":
            paired_low = m.end()
            continue
        return m.group()
    return None


class _Stream:
    """One JSON file read in chunks: whitespace, punctuation and whole values, decoded strictly.

    Only the current value and one chunk are in memory; a value that spans chunks is decoded again
    once more text has been read (rare: chunks are much larger than one simulation).
    """

    def __init__(self, path: Path, chunk: int = 1 << 24) -> None:
        self.path = path
        self.chunk = chunk
        self.fh = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.bytes_read = 0
        self.hasher = hashlib.sha256()

    def close(self) -> None:
        self.fh.close()

    def error(self, what: str) -> HarnessInputError:
        return HarnessInputError(f"{shown(self.path)}: {what}")

    def _more(self) -> bool:
        if self.eof:
            return False
        data = self.fh.read(max(self.chunk, len(self.buf) - self.pos))
        self.hasher.update(data)
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise self.error(f"not valid UTF-8 at byte {self.bytes_read + exc.start}") from None
        self.bytes_read += len(data)
        self.eof = not data
        self.buf = self.buf[self.pos :] + text
        self.pos = 0
        return bool(data)

    def peek(self) -> str:
        """The next non-blank character ('' at the end of the file)."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return ""

    def expect(self, chars: str, what: str) -> str:
        ch = self.peek()
        if ch == "" or ch not in chars:
            found = "end of file (truncated file?)" if ch == "" else repr(ch)
            raise self.error(
                f"not valid JSON: expected {what}, found {found} at character {self._offset()}"
            )
        self.pos += 1
        return ch

    def _offset(self) -> int:
        return self.bytes_read - len(self.buf.encode("utf-8", "surrogatepass")) + self.pos

    def value(self, where: str, check_text: bool = True) -> object:
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self._more():
                    continue
                hint = " (truncated file?)" if exc.pos >= len(self.buf.rstrip()) - 1 else ""
                raise self.error(f"not valid JSON{hint}: {exc.msg} in {where}") from None
            except _Duplicate as exc:
                raise self.error(f"not valid JSON: {exc} in {where}") from None
            except RecursionError:
                raise self.error(f"not valid JSON: nesting too deep in {where}") from None
            if end == len(self.buf) and self._more():
                continue  # a number may go on in the next chunk
            if check_text:
                text = self.buf[self.pos : end]
                if "\\u" in text and (lone := _lone_surrogate(text)):
                    raise self.error(f"not valid JSON: lone surrogate escape {lone!r} in {where}")
            self.pos = end
            return value

    def finish(self) -> str:
        if self.peek() != "":
            raise self.error(
                f"not valid JSON: extra data after the top-level object at character {self._offset()}"
            )
        return self.hasher.hexdigest()


def _members(stream: _Stream) -> Iterator[tuple[str, object]]:
    """The top-level object's members; ``simulations`` yields a marker and its elements are read by the
    caller with ``_elements`` before iteration goes on."""
    stream.expect("{", "a JSON object with 'info', 'tasks' and 'simulations'")
    if stream.peek() == "}":
        stream.pos += 1
        return
    while True:
        key = stream.value("a top-level key")
        if not isinstance(key, str):
            raise stream.error("not valid JSON: an object key must be a string")
        stream.expect(":", "':'")
        if key == "simulations" and stream.peek() == "[":
            yield key, _ARRAY
        else:
            yield key, stream.value(f"field {key!r}")
        if stream.expect(",}", "',' or '}'") == "}":
            return


_ARRAY = object()


def _elements(stream: _Stream, where: str, check_text: bool = True) -> Iterator[object]:
    stream.expect("[", "'['")
    if stream.peek() == "]":
        stream.pos += 1
        return
    index = 0
    while True:
        yield stream.value(f"{where}[{index}]", check_text)
        index += 1
        if stream.expect(",]", "',' or ']'") == "]":
            return


def read_json_strict(path: Path, what: str = "file") -> tuple[object, str]:
    """A whole (small) JSON file, strictly decoded, and its sha256."""
    stream = _open(path)
    try:
        value = stream.value(what)
        return value, stream.finish()
    finally:
        stream.close()


def _open(path: Path) -> _Stream:
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise HarnessInputError(f"{shown(path)}: not a regular file")
        return _Stream(path)
    except OSError as exc:
        raise HarnessInputError(f"{shown(path)}: cannot read ({exc.strerror})") from None


# --- task versions -------------------------------------------------------------------------------


def _comparable(task: Task) -> str:
    """The parts of a task that decide its gold: tau2's validated criteria and the user scenario."""
    criteria = task.evaluation_criteria
    payload = {
        "criteria": criteria.model_dump(mode="json") if criteria else None,
        "user_scenario": task.user_scenario.model_dump(mode="json"),
    }
    return json.dumps(payload, sort_keys=True)


def _gold_comparable(task: Task) -> str:
    """What decides a task's gold alone (variants apply where this equals a pinned task's)."""
    criteria = task.evaluation_criteria
    return json.dumps(criteria.model_dump(mode="json") if criteria else None, sort_keys=True)


def _match_counts(embedded: list[Task | None], ids: list[str]) -> dict[tuple[str, str], int]:
    """How many embedded tasks equal the pinned task of the same id, per (domain, version)."""
    theirs = [
        (tid, _comparable(t) if t is not None else "") for tid, t in zip(ids, embedded, strict=True)
    ]
    counts = {}
    for domain in DOMAINS:
        for version in TASK_VERSIONS:
            try:
                pinned = _pinned_comparables(domain, version)
            except TauDataError:
                counts[(domain, version)] = 0  # unavailable here; detection says so if it matters
                continue
            counts[(domain, version)] = sum(1 for tid, text in theirs if pinned.get(tid) == text)
    return counts


@lru_cache(maxsize=8)
def _pinned_comparables(domain: str, version: str) -> dict[str, str]:
    """The pinned tasks' comparable form, computed once per process rather than once per file."""
    return {tid: _comparable(task) for tid, task in load_task_set(domain, version).by_id.items()}


@lru_cache(maxsize=8)
def _pinned_golds(domain: str, version: str) -> dict[str, str]:
    return {
        tid: _gold_comparable(task) for tid, task in load_task_set(domain, version).by_id.items()
    }


def pinned_gold_version(domain: str, task: Task) -> str | None:
    """A pinned version whose task of this id has the same gold (evaluation criteria), if any."""
    mine = _gold_comparable(task)
    for version in TASK_VERSIONS:
        try:
            if _pinned_golds(domain, version).get(task.id) == mine:
                return version
        except TauDataError:
            continue
    return None


def detect_task_version(
    path: Path, domain: str, embedded: list[Task | None], ids: list[str], given: str | None
) -> tuple[str, str]:
    """Which task version the file's embedded tasks are; (version, how it was decided).

    Embedded tasks that match neither pinned version make a ``custom`` run, scored against them (as tau2's
    ``evaluate-trajs`` does). Also refuses a file whose embedded tasks belong to the other domain.
    """
    counts = _match_counts(embedded, ids) if embedded else {}
    n = len(embedded)
    summary = ", ".join(f"{v} {counts[(domain, v)]}/{n}" for v in TASK_VERSIONS) if counts else ""
    if counts and not any(counts[(domain, v)] for v in TASK_VERSIONS):
        other = [(d, v) for (d, v), c in counts.items() if d != domain and c]
        if other:
            d, v = max(other, key=lambda k: counts[k])
            raise HarnessInputError(
                f"{shown(path)}: domain mismatch: field 'info.environment_info.domain_name' says {domain!r} "
                f"but the embedded tasks are {d} {v} tasks ({counts[(d, v)]}/{n})"
            )
    if given is not None:
        if given not in TASK_VERSIONS:
            raise HarnessInputError(
                f"--task-version: {given!r} is not one of {list(TASK_VERSIONS)}"
            )
        return given, "given by --task-version" + (
            f" (embedded tasks: {summary})" if summary else ""
        )
    if not embedded:
        raise HarnessInputError(
            f"{shown(path)}: field 'tasks' is missing or empty; pass --task-version"
        )
    full = [v for v in TASK_VERSIONS if counts[(domain, v)] == n]
    if len(full) == 1:
        return full[0], f"detected from embedded tasks ({summary})"
    if len(full) > 1:
        # Every embedded task is one that tau3 left unchanged: the golds are the same.
        return (
            "tau2",
            f"embedded tasks match both versions ({summary}); golds identical, tau2 chosen",
        )
    load_task_set(domain, "tau3")  # if tau3 data is missing, say that rather than "custom"
    return (
        CUSTOM,
        f"custom: embedded tasks match neither pinned version ({summary}); scored against them",
    )


# --- runs and simulations ------------------------------------------------------------------------


@dataclass
class ImportedSimulation:
    sim: SimulationRun | None  # None when the row cannot be scored (see ``error``)
    raw: dict
    error: str | None = None
    status: str = "error"  # the row's status when ``sim`` is None (error | infra_error)
    flags: list[str] = field(default_factory=list)  # suspicious-but-legal input (see FLAGS)

    @property
    def simulation_id(self) -> str:
        return str(self.raw.get("id", "?"))


@dataclass
class ImportedRun:
    path: Path
    sha256: str
    layout: str  # monolithic | dir
    domain: str  # the environment it is scored in: airline or retail
    recorded_domain: str  # info.environment_info.domain_name as recorded
    task_version: str  # tau2 | tau3 | custom
    version_note: str
    agent_model: str | None
    agent_implementation: str | None
    user_model: str | None
    info: dict
    tasks: dict[str, Task]  # the tasks it is scored against, by id
    tasks_sha256: str | None
    policy_sha256: str | None
    n_simulations: (
        int | None
    )  # None: not counted yet (a monolithic file is read once, while scoring)
    embedded_ids: frozenset[str] = (
        frozenset()
    )  # task ids embedded in the file (empty: none embedded)
    skip_bad: bool = False
    _index: list[dict] = field(default_factory=list, repr=False)  # dir layout: simulation_index

    @property
    def run_id(self) -> str:
        return self.sha256[:16]

    @property
    def simulations(self) -> list[ImportedSimulation]:
        """Every simulation, read now (small files and tests; scoring streams ``iter_simulations``)."""
        return list(self.iter_simulations())

    def iter_simulations(self) -> Iterator[ImportedSimulation]:
        """Each simulation validated, one at a time; a bad one raises unless the run skips bad ones."""
        for index, raw in enumerate(self._raw_simulations()):
            yield _import_simulation(self, index, raw)

    def _raw_simulations(self) -> Iterator[object]:
        if self.layout == "dir":
            folder = self.path / "simulations"
            for entry in self._index:
                sim_id = str(entry.get("id"))
                file = folder / f"{sim_id}.json"
                if (
                    not file.is_file()
                ):  # only with --skip-bad: the check at import refused it otherwise
                    yield {"id": sim_id, "task_id": entry.get("task_id"), "_missing": True}
                    continue
                value, _ = read_json_strict(file, "the simulation")
                yield value
            return
        stream = _open(self.path)
        seen: set[str] = set()
        count = 0
        try:
            for key, value in _members(stream):
                if (
                    key in seen
                ):  # e.g. a trailing "simulations": [] that would silently drop every one
                    raise stream.error(f"not valid JSON: duplicate key {key!r} at the top level")
                seen.add(key)
                if key == "simulations" and value is _ARRAY:
                    for element in _elements(stream, "simulations"):
                        count += 1
                        yield element
            stream.finish()
        finally:
            stream.close()
        if count == 0:
            raise HarnessInputError(
                f"{shown(self.path)}: field 'simulations' is empty: nothing to rescore"
            )


def _model(where: str, info: dict, key: str) -> tuple[str | None, str | None]:
    section = info.get(key)
    if section is None:
        return None, None
    if not isinstance(section, dict):
        raise HarnessInputError(
            f"{where}: field 'info.{key}': expected an object, got {_type_name(section)}"
        )
    out = []
    for name in ("llm", "implementation"):
        value = section.get(name)
        if value is not None and not isinstance(value, str):
            raise HarnessInputError(
                f"{where}: field 'info.{key}.{name}': expected a string, got {_type_name(value)} {_clip(value)}"
            )
        out.append(value)
    return out[0], out[1]


def _sha256_json(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _environment_domain(path: Path, recorded: object, given_domain: str | None) -> str:
    if isinstance(recorded, str):
        for domain in DOMAINS:
            if recorded == domain or recorded.startswith(domain):
                if given_domain is not None and given_domain != domain and recorded == domain:
                    raise HarnessInputError(
                        f"--domain: {given_domain!r} but {shown(path)} records domain {recorded!r}"
                    )
                return domain
    if given_domain is not None:
        if given_domain not in DOMAINS:
            raise HarnessInputError(f"--domain: {given_domain!r} is not one of {list(DOMAINS)}")
        return given_domain
    raise HarnessInputError(
        f"{shown(path)}: field 'info.environment_info.domain_name' is {recorded!r}, not a known domain; "
        f"pass --domain {'|'.join(DOMAINS)} for a custom run of one of them"
    )


def _read_header(path: Path) -> tuple[dict, int | None, str, str, list[dict]]:
    """Monolithic or dir layout: (top-level fields but simulations, number of simulations, sha256,
    layout, simulation_index)."""
    if path.is_dir():
        results = path / "results.json"
        data, head_sha = read_json_strict(results, "results.json")
        if not isinstance(data, dict):
            raise HarnessInputError(
                f"{shown(results)}: expected a JSON object with 'info' and 'simulation_index'"
            )
        index = data.get("simulation_index")
        if not isinstance(index, list) or not all(isinstance(e, dict) and "id" in e for e in index):
            raise HarnessInputError(
                f"{shown(results)}: field 'simulation_index' is missing or not a list of objects with 'id'"
            )
        for entry in index:
            sim_id = entry["id"]
            if (
                not isinstance(sim_id, str)
                or not sim_id
                or "/" in sim_id
                or "\\" in sim_id
                or sim_id in (".", "..")
            ):
                raise HarnessInputError(
                    f"{shown(results)}: field 'simulation_index': id {_clip(sim_id)} is not a file name"
                )
        if data.get("simulations"):
            raise HarnessInputError(
                f"{shown(results)}: field 'simulations' is not empty in a dir-layout run (simulations/ beside it)"
            )
        return data, len(index), head_sha, "dir", index
    stream = _open(path)
    header: dict = {}
    count: int | None = None
    try:
        for key, value in _members(stream):
            if key in header:
                raise stream.error(f"not valid JSON: duplicate key {key!r} at the top level")
            if key == "simulations" and value is _ARRAY:
                header[key] = []
                if "info" in header and "tasks" in header:
                    break  # tau2's order: the simulations are read once, while they are scored
                count = sum(1 for _ in _elements(stream, "simulations", check_text=False))
            else:
                header[key] = value
    finally:
        stream.close()
    return header, count, _sha256_file(path), "monolithic", []


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 22):
                h.update(chunk)
    except OSError as exc:
        raise HarnessInputError(f"{shown(path)}: cannot read ({exc.strerror})") from None
    return h.hexdigest()


def _check_dir_files(path: Path, index: list[dict], skip_bad: bool) -> None:
    """tau2 refuses a dir-layout run whose index and simulation files disagree; so do we, naming them."""
    ids = [str(e["id"]) for e in index]
    if len(set(ids)) != len(ids):
        dup = next(i for n, i in enumerate(ids) if i in ids[:n])
        raise HarnessInputError(
            f"{shown(path / 'results.json')}: field 'simulation_index': duplicate id {dup!r}"
        )
    try:
        on_disk = {
            p.name[: -len(".json")]
            for p in (path / "simulations").iterdir()
            if p.name.endswith(".json")
        }
    except OSError as exc:
        raise HarnessInputError(
            f"{shown(path / 'simulations')}: cannot list folder ({exc.strerror})"
        ) from None
    missing = [i for i in ids if i not in on_disk]
    extra = sorted(on_disk - set(ids))
    if extra or (missing and not skip_bad):
        parts = []
        if missing:
            parts.append(f"missing simulation files for ids {', '.join(missing)}")
        if extra:
            parts.append(f"simulation files not in the index: {', '.join(extra)}")
        raise HarnessInputError(
            f"{shown(path)}: index and simulations/ disagree: {'; '.join(parts)}"
        )


def import_results_file(
    path: Path, task_version: str | None = None, skip_bad: bool = False, domain: str | None = None
) -> ImportedRun:
    """Read one results file's metadata and check every simulation parses; simulations are validated
    as they are streamed (``ImportedRun.iter_simulations``). Raises ``HarnessInputError`` on bad input."""
    path = Path(path)
    data, count, sha, layout, index = _read_header(path)
    where = shown(path / "results.json" if layout == "dir" else path)
    if "info" not in data:
        raise HarnessInputError(f"{where}: missing field 'info' (not a tau2 run results file?)")
    if layout == "monolithic" and "simulations" not in data:
        raise HarnessInputError(
            f"{where}: missing field 'simulations' (not a tau2 run results file?)"
        )
    if layout == "monolithic" and not isinstance(data.get("simulations"), list):
        raise HarnessInputError(f"{where}: field 'simulations' is not a list")
    info = data["info"]
    if not isinstance(info, dict):
        raise HarnessInputError(f"{where}: field 'info' is not an object")
    env_info = info.get("environment_info")
    if env_info is not None and not isinstance(env_info, dict):
        raise HarnessInputError(
            f"{where}: field 'info.environment_info': expected an object, got {_type_name(env_info)}"
        )
    env_info = env_info or {}
    recorded_domain = env_info.get("domain_name")
    env_domain = _environment_domain(path, recorded_domain, domain)
    policy = env_info.get("policy")
    raw_tasks = data.get("tasks") or []
    if not isinstance(raw_tasks, list):
        raise HarnessInputError(f"{where}: field 'tasks' is not a list")
    tasks: list[Task | None] = []
    ids: list[str] = []
    for i, item in enumerate(raw_tasks):
        if not isinstance(item, dict):
            raise HarnessInputError(f"{where}: field 'tasks[{i}]' is not an object")
        ids.append(str(item.get("id")))
        try:
            tasks.append(Task.model_validate(item))
        except ValidationError:
            tasks.append(None)  # not a pinned task; an error only if it is scored against (custom)
    if len(set(ids)) != len(ids):
        dup = next(i for n, i in enumerate(ids) if i in ids[:n])
        raise HarnessInputError(f"{where}: field 'tasks': duplicate task id {dup!r}")
    version, note = detect_task_version(path, env_domain, tasks, ids, task_version)
    if version == CUSTOM:
        for i, (tid, task) in enumerate(zip(ids, tasks, strict=True)):
            if task is None:
                try:
                    Task.model_validate(raw_tasks[i])
                except ValidationError as exc:
                    first = exc.errors()[0]
                    loc = ".".join(map(str, first["loc"]))
                    raise HarnessInputError(
                        f"{where}: field 'tasks[{i}].{loc}' (task {tid!r}): {first['msg']}"
                    ) from None
        by_id = {t.id: t for t in tasks if t is not None}
    else:
        by_id = dict(load_task_set(env_domain, version).by_id)
    if count == 0:
        raise HarnessInputError(f"{where}: field 'simulations' is empty: nothing to rescore")
    if layout == "dir":
        _check_dir_files(path, index, skip_bad)
    agent_model, agent_impl = _model(where, info, "agent_info")
    user_model, _ = _model(where, info, "user_info")
    run = ImportedRun(
        path=path,
        sha256=sha,
        layout=layout,
        domain=env_domain,
        recorded_domain=str(recorded_domain) if recorded_domain is not None else env_domain,
        task_version=version,
        version_note=note,
        agent_model=agent_model,
        agent_implementation=agent_impl,
        user_model=user_model,
        info=info,
        tasks=by_id,
        tasks_sha256=_sha256_json(raw_tasks) if raw_tasks else None,
        policy_sha256=hashlib.sha256(policy.encode("utf-8", "surrogatepass")).hexdigest()
        if isinstance(policy, str)
        else None,
        n_simulations=count,
        embedded_ids=frozenset(ids),
        skip_bad=skip_bad,
        _index=index,
    )
    return run


# Suspicious-but-legal inputs: scored as tau2 would, but marked on the row and counted in the summary.
FLAGS = {
    "empty_conversation": "an empty message list",
    "reward_out_of_range": "a recorded reward outside [0, 1]",
    "negative_trial": "a negative trial number",
    "negative_cost": "a negative recorded cost or duration",
}
_INT64 = (-(2**63), 2**63 - 1)
_JSON_TYPE = {
    str: "a string",
    int: "an integer",
    float: "a number",
    dict: "an object",
    list: "a list",
}
_WANT = {
    "str": "a string",
    "int": "an integer",
    "number": "a number",
    "dict": "an object",
    "list": "a list",
}


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return next((n for t, n in _JSON_TYPE.items() if type(value) is t), type(value).__name__)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _field_error(raw: dict) -> str | None:
    """The JSON types of the fields a row stores, as tau2's model declares them (tau2's lax validation
    would turn ``"123"`` into 123 or let the row keep a null); integers must fit 64 bits."""
    checks: list[tuple[str, object, tuple[str, ...], bool]] = [
        ("id", raw.get("id"), ("str",), False),
        ("task_id", raw.get("task_id"), ("str",), False),
        ("termination_reason", raw.get("termination_reason"), ("str",), False),
        ("trial", raw.get("trial"), ("int",), True),
        ("seed", raw.get("seed"), ("int",), True),
        ("duration", raw.get("duration"), ("number",), True),
        ("agent_cost", raw.get("agent_cost"), ("number",), True),
        ("user_cost", raw.get("user_cost"), ("number",), True),
        ("reward_info", raw.get("reward_info"), ("dict",), True),
        ("messages", raw.get("messages"), ("list",), True),
    ]
    info = raw.get("reward_info")
    if isinstance(info, dict):
        checks.append(("reward_info.reward", info.get("reward"), ("number",), True))
    for name, value, kinds, nullable in checks:
        if value is None:
            if nullable or name not in raw:
                continue  # a missing required field is pydantic's to name
            return f"field '{name}': expected {_WANT[kinds[0]]}, got null"
        ok = {
            "str": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "number": _number(value),
            "dict": isinstance(value, dict),
            "list": isinstance(value, list),
        }
        if not any(ok[k] for k in kinds):
            return f"field '{name}': expected {_WANT[kinds[0]]}, got {_type_name(value)} {_clip(value)}"
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not _INT64[0] <= value <= _INT64[1]
        ):
            return f"field '{name}': integer {_clip(value)} is outside the 64-bit range"
    return None


def _clip(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _flags(raw: dict) -> list[str]:
    flags = []
    if raw.get("messages") == []:
        flags.append("empty_conversation")
    info = raw.get("reward_info")
    reward = info.get("reward") if isinstance(info, dict) else None
    if _number(reward) and not 0.0 <= reward <= 1.0:
        flags.append("reward_out_of_range")
    if _number(raw.get("trial")) and raw["trial"] < 0:
        flags.append("negative_trial")
    if any(_number(raw.get(k)) and raw[k] < 0 for k in ("agent_cost", "user_cost", "duration")):
        flags.append("negative_cost")
    return flags


def _import_simulation(run: ImportedRun, index: int, raw: object) -> ImportedSimulation:
    sim_id = str(raw.get("id", f"#{index}")) if isinstance(raw, dict) else f"#{index}"
    error: str | None = None
    sim: SimulationRun | None = None
    legal = False  # a row that cannot be scored but is not bad input (no messages, infra error)
    status = "error"
    if not isinstance(raw, dict):
        error = "simulation is not a JSON object"
        raw = {"id": sim_id}
    elif raw.get("_missing"):
        error = "simulation file missing from simulations/"
    elif (type_error := _field_error(raw)) is not None:
        error = type_error
    else:
        reason = raw.get("termination_reason")
        if reason not in V1_TERMINATION_REASONS and reason not in _PINNED_REASONS:
            error = f"field 'termination_reason': {reason!r} is not a tau2 termination reason"
        elif raw.get("messages") is None and "messages" in raw:
            legal = True
            has_ticks = bool(raw.get("ticks"))
            error = "no messages to score: 'messages' is null" + (
                " (a full-duplex run keeps only 'ticks')" if has_ticks else ""
            )
        else:
            payload = raw
            if reason not in _PINNED_REASONS:
                # A v1 reason the pinned model lacks: every one of them scores 0 by rule, as agent_error does.
                payload = {**raw, "termination_reason": "agent_error"}
            try:
                sim = SimulationRun.model_validate(payload)
            except ValidationError as exc:
                first = exc.errors()[0]
                error = f"field '{'.'.join(map(str, first['loc']))}': {first['msg']}"
            if sim is not None and sim.task_id not in run.tasks:
                error = f"unknown task id {sim.task_id!r} for {run.domain} {run.task_version}"
                sim = None
            elif sim is not None and run.embedded_ids and sim.task_id not in run.embedded_ids:
                error = f"field 'task_id': {sim.task_id!r} is not among the file's embedded tasks"
                sim = None
            elif sim is not None and reason == INFRA_ERROR:
                legal, status, sim = True, "infra_error", None
                error = "infrastructure_error: not the agent's failure (tau2 reruns it); excluded from means"
    flags = _flags(raw) if error is None or legal else []
    if error is None:
        return ImportedSimulation(sim, raw, flags=flags)
    if not legal and not run.skip_bad:
        raise HarnessInputError(f"{shown(run.path)}: simulation {shown(sim_id[:80])}: {error}")
    return ImportedSimulation(None, raw, error, status, flags)
