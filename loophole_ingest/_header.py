"""A results file's header: the top-level fields of a monolithic file (simulations counted, not kept), or a
dir-layout run's ``results.json`` and its ``simulation_index`` checked against ``simulations/``."""

from __future__ import annotations

from pathlib import Path

from loophole_base import HarnessInputError, shown
from loophole_ingest._jsonstream import (
    ARRAY,
    JSONObject,
    elements,
    members,
    open_stream,
    read_json_strict,
    sha256_file,
)
from loophole_ingest._shapes import LIST
from loophole_ingest._simulations import clip


def read_header(path: Path) -> tuple[JSONObject, int | None, str, str, list[JSONObject]]:
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
                    f"{shown(results)}: field 'simulation_index': id {clip(sim_id)} is not a file name"
                )
        if data.get("simulations"):
            raise HarnessInputError(
                f"{shown(results)}: field 'simulations' is not empty in a dir-layout run (simulations/ beside it)"
            )
        return data, len(index), head_sha, "dir", index
    stream = open_stream(path)
    header: JSONObject = {}
    count: int | None = None
    try:
        if stream.peek() == "[":  # a bare list of simulations (loophole_ingest._shapes)
            return header, None, sha256_file(path), LIST, []
        for key, value in members(stream):
            if key in header:
                raise stream.error(f"not valid JSON: duplicate key {key!r} at the top level")
            if key == "simulations" and value is ARRAY:
                header[key] = []
                if "info" in header and "tasks" in header:
                    break  # tau2's order: the simulations are read once, while they are scored
                count = sum(1 for _ in elements(stream, "simulations", check_text=False))
            else:
                header[key] = value
    finally:
        stream.close()
    return header, count, sha256_file(path), "monolithic", []


def check_dir_files(path: Path, index: list[JSONObject], skip_bad: bool) -> None:
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
