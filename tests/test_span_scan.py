"""The span scanner's structure finding (``loophole_ingest._spans._structural``: a block's bytes as 64-bit words)
against a plain reading of the same bytes one at a time, and whole files' spans against the stream reader's
values at block sizes that cut words, runs of backslashes and strings anywhere."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from loophole_ingest import SimulationSpans
from loophole_ingest._spans import _Scratch, _structural, read_spans
from tests.results_layouts import streamed_simulations


def _one_at_a_time(block: bytes, carry: int, in_string: int) -> tuple[list[int], int]:
    """The brackets outside strings and whether the block ends in one, a byte at a time: a quote after an odd
    run of backslashes (``carry`` of them before the block) is escaped."""
    marks, run = [], carry
    for at, byte in enumerate(block):
        if byte == 34 and run % 2 == 0:
            in_string ^= 1
        elif byte in b"[]{}" and not in_string:
            marks.append(at)
        run = run + 1 if byte == 92 else 0
    return marks, in_string


def _blocks(seed: int) -> list[bytes]:
    rng = random.Random(seed)
    pieces = ["\\", '"', "{", "}", "[", "]", "a", " ", ":", "\\" * 63, "\\" * 64, "\\" * 65, "\\" * 130]
    out = []
    for _ in range(6):
        weights = [rng.randint(0, 9) for _ in pieces]
        weights[0] += 1
        out.append("".join(rng.choices(pieces, weights, k=rng.randint(1, 700))).encode())
    out.append(b"\\" * 200 + b'"[')  # a carry through several words of backslashes
    out.append(b"\\" * 64 + b'"' + b"a" * 63 + b'"{')
    return out


@pytest.mark.parametrize("seed", range(30))
def test_the_structure_of_a_block_is_what_a_byte_at_a_time_finds(seed):
    for block in _blocks(seed):
        scratch = _Scratch(len(block))
        for carry in (0, 1, 2, 3, 64, 65):
            for in_string in (0, 1):
                b = np.frombuffer(block, np.uint8)
                marks, ends_in = _structural(b, carry, in_string, scratch)
                assert (marks.tolist(), ends_in) == _one_at_a_time(block, carry, in_string), (block, carry, in_string)


@pytest.mark.parametrize("seed", range(8))
def test_spans_of_backslash_heavy_files_decode_to_what_the_stream_reads(tmp_path, seed):
    rng = random.Random(seed)
    pieces = ["\\", '"', "{", "}", "[", "]", "a", " ", "é", "\\\\", "\\" * 70]
    sims = [{"id": str(k), "t": "".join(rng.choices(pieces, k=rng.randint(0, 400))), "n": [1, {"x": "]"}]}
            for k in range(rng.randint(1, 8))]
    path = tmp_path / "tricky.json"
    path.write_text(json.dumps({"info": {"a": '[{\\"}'}, "simulations": sims, "tasks": []},
                               ensure_ascii=seed % 2 == 0), encoding="utf-8")
    expected = streamed_simulations(path)
    assert expected == sims
    for block in (63, 64, 65, 200, 1 << 20):  # smaller blocks: test_rescore_scale.py, on a shorter file
        spans = SimulationSpans(path, block)
        found = list(spans)
        spans.finish(found[-1][1])
        assert read_spans(path, spans.start + 1, found, True) == expected, block


def _read_whole(path, **reads) -> tuple:
    """A results file read member by member by the stream reader with ``reads`` (``chunk``, ``first``): the members,
    the simulations, the sha256, or the one-line error; and how many bytes the first member took to read."""
    from loophole_ingest._jsonstream import ARRAY, Stream, elements, members

    stream = Stream(path, **reads)
    got: list = []
    first_read = None
    try:
        for key, value in members(stream):
            first_read = first_read or stream.bytes_read
            got.append((key, list(elements(stream, "simulations")) if value is ARRAY else value))
        return got, stream.finish(), first_read
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return got, f"{type(exc).__name__}: {exc}", first_read
    finally:
        stream.close()


@pytest.mark.parametrize("name", ["whissle_airline_tau3_1trial.json", "toolorchestra_retail_tau2_1trial.json"])
def test_a_stream_whose_reads_grow_reads_what_whole_chunks_read_and_a_header_alone_reads_a_megabyte(tmp_path, name):
    """The stream's reads start at a megabyte and double (a header read alone, 0.2-0.3 MB in these files, took a
    whole 16 MB chunk): the members, the simulations, the sha256 and an error's place are those of whole chunks,
    also with reads that start tiny (values spanning many reads); the span scan's header takes one megabyte."""
    from tests.conftest import real_run

    path = real_run(name)
    cut = tmp_path / "cut.json"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size * 2 // 3])  # an error deep in the file
    for source in (path, cut):
        whole = _read_whole(source, chunk=1 << 24, first=1 << 24)
        assert whole[2] == min(1 << 24, source.stat().st_size)
        for first in (1 << 20, 1000):
            grown = _read_whole(source, first=first)
            assert grown[:2] == whole[:2], (source, first)
    assert isinstance(_read_whole(cut)[1], str) and "HarnessInputError" in _read_whole(cut)[1]
    spans = SimulationSpans(path)
    assert spans.stream.bytes_read == 1 << 20 and spans.start < 1 << 20
    spans.stream.close()
