"""Text as people write it, made matchable: the one normalisation step before any pattern of the evidence
machinery sees a message (#36 item 2).

- literal ``\\n``, ``\\t`` and ``\\"`` (content wrapped as JSON, whose escapes never split a sentence) become a
  newline, a space and a quote;
- Unicode NFKC (full-width letters, ligatures, non-breaking and narrow spaces become plain ones);
- hyphens, dashes and the minus sign (U+2010–U+2015, U+2212, U+FE58, U+FE63, U+FF0D) become ``-``; curly
  apostrophes ``'``; zero-width characters go;
- a markdown table's separator row goes, and each row is one sentence whose cells are clauses (``|`` → ``;``);
- markdown emphasis (``**``, ``__``) goes;
- numbered items run together on one line ("1. Cancel … 2. Book …") each start a line: a list item is a
  sentence.

Every character of the result keeps the index of the character it came from (``Normalised.origin``), so an
evidence span found in the normalised text points at the original text, which the viewer marks."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

_ESCAPES = re.compile(r"\\[nrt\"]")
_DASHES = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")
_APOSTROPHES = re.compile("[\u2018\u2019\u201b\u2032]")
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")
_TABLE_RULE = re.compile(r"(?m)^[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$")
_TABLE_ROW = re.compile(r"(?m)^[ \t]*\|.*$")
_EMPHASIS = re.compile(r"\*\*|__")
_INLINE_ITEM = re.compile(r"(?<=[^\d\s])[ \t]+(?=\d{1,2}[.)][ \t]+[A-Z\"'(])")


@dataclass(frozen=True)
class Normalised:
    text: str
    origin: tuple[int, ...]  # origin[i]: the original index of text[i]; one more entry: the original length

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original (start, end) of ``text[start:end]``."""
        if end <= start:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1


def _apply(
    text: str, origin: list[int], pattern: re.Pattern[str], repl: str | Callable[[re.Match[str]], str]
) -> tuple[str, list[int]]:
    """``pattern.sub(repl, text)`` keeping the origin map: a replacement of the same length maps one to one,
    any other maps every new character to the match's first."""
    out: list[str] = []
    org: list[int] = []
    pos = 0
    for m in pattern.finditer(text):
        out.append(text[pos : m.start()])
        org += origin[pos : m.start()]
        new = repl(m) if callable(repl) else repl
        out.append(new)
        org += origin[m.start() : m.end()] if len(new) == m.end() - m.start() else [origin[m.start()]] * len(new)
        pos = m.end()
    if not out:
        return text, origin
    out.append(text[pos:])
    org += origin[pos:]
    return "".join(out), org


def _nfkc(text: str, origin: list[int]) -> tuple[str, list[int]]:
    if text.isascii():
        return text, origin
    out: list[str] = []
    org: list[int] = []
    for ch, at in zip(text, origin[:-1], strict=True):
        new = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        out.append(new)
        org += [at] * len(new)
    return "".join(out), org + origin[-1:]


def _escape(m: re.Match[str]) -> str:
    return {"n": "\n", "r": "\n", "t": " ", '"': '"'}[m.group(0)[1]]


def normalise(text: str) -> Normalised:
    """``text`` ready for matching, with its origin map (module docstring)."""
    origin = list(range(len(text) + 1))
    steps: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
        (_ESCAPES, _escape),
        (_INVISIBLE, ""),
    ]
    for pattern, repl in steps:
        text, origin = _apply(text, origin, pattern, repl)
    text, origin = _nfkc(text, origin)
    for pattern, repl in (
        (_DASHES, "-"),
        (_APOSTROPHES, "'"),
        (_TABLE_RULE, lambda m: " " * len(m.group(0))),
        (_TABLE_ROW, lambda m: m.group(0).replace("|", ";")),
        (_EMPHASIS, ""),
        (_INLINE_ITEM, "\n"),
    ):
        text, origin = _apply(text, origin, pattern, repl)
    return Normalised(text, tuple(origin))
