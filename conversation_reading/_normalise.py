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
  sentence;
- a model's reasoning is not speech (#40 class 7): reasoning in tags (``<think>…</think>``, ``<reasoning>``,
  ``<analysis>``, …, Kimi's ``◁think▷``, an analysis channel), everything before a closing tag whose opening
  tag the chat template wrote, and the reasoning fields of a reply wrapped as JSON (``"thought": "…"``) go.
  A reply's paragraphs that deliberate about the user in the third person are reasoning too; the words that
  tell are the catalog's, so ``without_reasoning`` takes them as patterns (``_evidence.read_turns`` applies it to
  every agent message, once, for every reader).

Every character of the result keeps the index of the character it came from (``Normalised.origin``), so an
evidence span found in the normalised text points at the original text, which the viewer marks."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from conversation_reading._gate import gateable, may_match

_ESCAPES = re.compile(r"\\[nrt\"]")
_DASHES = re.compile("[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")
_APOSTROPHES = re.compile("[\u2018\u2019\u201b\u2032]")
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")
_TABLE_RULE = re.compile(r"(?m)^[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$")
_TABLE_ROW = re.compile(r"(?m)^[ \t]*\|.*$")
_EMPHASIS = re.compile(r"\*\*|__")
_INLINE_ITEM = re.compile(r"(?<=[^\d\s])[ \t]+(?=\d{1,2}[.)][ \t]+[A-Z\"'(])")
# Reasoning as formats write it (names of tags and JSON fields; the words are the catalog's).
_REASONING_TAGS = (r"think|thinking|thoughts?|reasoning|reason|analysis|scratchpad|reflection"
                   r"|inner_monologue|internal_monologue|chain_of_thought")
_TAGGED = re.compile(rf"<\s*({_REASONING_TAGS})\s*>.*?(?:<\s*/\s*\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_OPENED_BY_TEMPLATE = re.compile(rf"\A.*?<\s*/\s*(?:{_REASONING_TAGS})\s*>", re.IGNORECASE | re.DOTALL)
_KIMI = re.compile("\u25c1think\u25b7.*?(?:\u25c1/think\u25b7|\\Z)", re.DOTALL)
_CHANNEL = re.compile(r"<\|channel\|>\s*(?:analysis|commentary)\s*<\|message\|>.*?(?=<\|(?:end|start|channel|return)\|>|\Z)",
                      re.DOTALL)
_CHANNEL_TOKENS = re.compile(r"<\|(?:start|end|message|channel|return)\|>(?:\s*(?:assistant|final)\b)?")
_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
_REASONING_FIELD = re.compile(
    rf'"(?:{_REASONING_TAGS}|reasoning_content|rationale)"\s*:\s*'
    rf"(?:{_JSON_STRING}|\[\s*(?:{_JSON_STRING}\s*,?\s*)*\])\s*,?",
    re.IGNORECASE,
)
_PARAGRAPH = re.compile(r"(?:[^\n]|\n(?![ \t]*\n))+")


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


_NON_ASCII_CHAR = re.compile(r"[^\x00-\x7f]")


def _nfkc(text: str, origin: list[int]) -> tuple[str, list[int]]:
    """Each non-ASCII character in its NFKC form (character by character, each new character mapped to the
    one it came from); ASCII passes as it is, unscanned in Python."""
    if text.isascii():
        return text, origin
    return _apply(text, origin, _NON_ASCII_CHAR, lambda m: unicodedata.normalize("NFKC", m.group(0)))


def _escape(m: re.Match[str]) -> str:
    return {"n": "\n", "r": "\n", "t": " ", '"': '"'}[m.group(0)[1]]


_NON_ASCII = ""  # a guard: the step can match only a text with a character outside ASCII

# Each step with what its pattern cannot match without (any one of these substrings; ``_NON_ASCII``: a
# non-ASCII character; nothing: always run): a text without it passes the step unchanged, so the scan is
# skipped. Tested against every step run unguarded (tests/test_text_normalisation.py).
def _steps() -> tuple[tuple, tuple]:
    before = (
        (_REASONING_FIELD, "", ('"',)),  # before the escapes: the field's value is still one JSON string
        (_ESCAPES, _escape, ("\\",)),
        (_INVISIBLE, "", (_NON_ASCII,)),
    )
    after = (
        (_TAGGED, "\n", ("<",)),
        (_KIMI, "\n", (_NON_ASCII,)),
        (_CHANNEL, "\n", ("<|",)),
        (_CHANNEL_TOKENS, "\n", ("<|",)),
        (_OPENED_BY_TEMPLATE, "\n", ("<",)),
        (_DASHES, "-", (_NON_ASCII,)),
        (_APOSTROPHES, "'", (_NON_ASCII,)),
        (_TABLE_RULE, lambda m: " " * len(m.group(0)), ("|",)),
        (_TABLE_ROW, lambda m: m.group(0).replace("|", ";"), ("|",)),
        (_EMPHASIS, "", ("**", "__")),
        (_INLINE_ITEM, "\n", ()),
    )
    return before, after


def _may_match(text: str, needs: tuple[str, ...]) -> bool:
    return not needs or any((not text.isascii()) if n == _NON_ASCII else (n in text) for n in needs)


def normalise(text: str, guarded: bool = True) -> Normalised:
    """``text`` ready for matching, with its origin map (module docstring). ``guarded=False`` scans every
    step whatever the text holds (the reference the guards are tested against)."""
    origin = list(range(len(text) + 1))
    before, after = _STEPS
    for pattern, repl, needs in before:
        if not guarded or _may_match(text, needs):
            text, origin = _apply(text, origin, pattern, repl)
    text, origin = _nfkc(text, origin)
    for pattern, repl, needs in after:
        if not guarded or _may_match(text, needs):
            text, origin = _apply(text, origin, pattern, repl)
    return Normalised(text, tuple(origin))


_STEPS = _steps()


def without_reasoning(
    text: Normalised, deliberates: re.Pattern[str], aside: re.Pattern[str], to_the_user: re.Pattern[str]
) -> Normalised:
    """An agent reply's speech: its paragraphs (blocks between blank lines) less the reasoning a model leaked
    into it. A paragraph that ``deliberates`` about the user in the third person ("The user is asking for
    compensation ... I should decline") is reasoning, and so is every paragraph before it (a model reasons,
    then answers); a paragraph that is an ``aside`` (the user in the third person, or self-talk: "Let me
    think") and says nothing ``to_the_user`` ("you") is reasoning on its own. A policy rule quoted to the user
    ("if the user has travel insurance"), next to "your reservation", is speech. Each dropped paragraph becomes
    one newline."""
    lowered, plain = text.text.lower(), gateable(text.text)
    may_deliberate, may_aside = may_match(deliberates, lowered, plain), may_match(aside, lowered, plain)
    if not may_deliberate and not may_aside:
        return text  # no paragraph can be reasoning (``_gate``): the scans would drop nothing
    blocks = [m.span() for m in _PARAGRAPH.finditer(text.text)]
    said = [text.text[a:b] for a, b in blocks]
    last = max((i for i, b in enumerate(said) if may_deliberate and deliberates.search(b)), default=-1)
    drop = [i <= last or (may_aside and bool(aside.search(b)) and not to_the_user.search(b))
            for i, b in enumerate(said)]
    if not any(drop):
        return text
    out: list[str] = []
    org: list[int] = []
    pos = 0
    for (a, b), dropped in zip(blocks, drop, strict=True):
        if not dropped:
            continue
        out.append(text.text[pos:a] + "\n")
        org += [*text.origin[pos:a], text.origin[a]]
        pos = b
    out.append(text.text[pos:])
    org += text.origin[pos:]
    return Normalised("".join(out), tuple(org))
