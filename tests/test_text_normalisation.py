"""Text as people write it (#36 item 2): one normalisation step before any matching, and evidence spans that
still point at the original text the viewer marks. Expected values are written by hand."""

from __future__ import annotations

from tau2.data_model.message import AssistantMessage, UserMessage

from conversation_reading._evidence import find_declines, read_turns
from conversation_reading._normalise import normalise
from loophole_report._viewer import marked_spans

# An agent's reply wrapped as JSON (literal \n escapes), with a non-breaking hyphen (U+2011), a curly
# apostrophe and a no-break space: as one public run writes them.
WRAPPED = (
    '{\n  "message": "Thanks for waiting, Mei.\\n\\nI\u2019m sorry, but basic\u2011economy tickets '
    "can\u2019t be modified\u00a0under our policy.\\n\\nIs there anything else?\"\n}"
)


def test_normalised_text_and_its_origin():
    n = normalise(WRAPPED)
    assert "\nI'm sorry, but basic-economy tickets can't be modified under our policy.\n" in n.text
    at = n.text.index("basic-economy")
    start, end = n.span(at, at + len("basic-economy"))
    assert WRAPPED[start:end] == "basic\u2011economy"
    table = normalise("| Option | Allowed |\n|---|:---:|\n| **Change** to another route | No |")
    assert [line.strip() for line in table.text.splitlines() if line.strip()] == [
        "; Option ; Allowed ;", "; Change to another route ; No ;"
    ]
    items = normalise("I can offer: 1. Cancel the trip for a refund 2. Book a new one")
    assert items.text == "I can offer:\n1. Cancel the trip for a refund\n2. Book a new one"
    assert normalise("a\u2013b \u2014 c\u2212d\u00a0e\u200bf").text == "a-b - c-d ef"


def test_a_decline_in_json_wrapped_unicode_text_is_found_and_marked_in_the_original():
    messages = [
        UserMessage(role="user", content="I want to change the flights on my basic economy reservation."),
        AssistantMessage(role="assistant", content=WRAPPED),
    ]
    found = find_declines("refuse_basic_economy_modify", read_turns(messages))
    assert len(found) == 1 and found[0].message_index == 1
    item = found[0]
    assert item.start is not None and item.end is not None
    marked = WRAPPED[item.start : item.end]
    assert marked.startswith("I\u2019m sorry, but basic\u2011economy") and marked.endswith("under our policy.")
    spans = marked_spans(WRAPPED, [item.excerpt], [(item.start, item.end)])
    assert [piece for piece, on in spans if on] == [marked]


# --- only what the agent said to the user is speech (#40 class 7) ------------------------------------------

_REASONING = "The user is asking to change a basic economy reservation. Basic economy flights cannot be " \
             "modified under our policy, so I should decline."
_PLAIN = "Basic economy flights cannot be modified under our policy; decline."  # no third person: only the tags tell
_SPOKEN = "I'm sorry, but basic economy flights cannot be modified under our policy."


def _l6(*agent: AssistantMessage) -> list:
    return [UserMessage(role="user", content="Please change the flights of my reservation OWZ4XL."), *agent]


def test_leaked_reasoning_is_no_decline_for_any_reader():
    from conversation_reading import evidence_holds
    from gold_variants import explain_variant, variant_record
    from tests.conftest import airline_variant

    variant = airline_variant("tau2", "32", "L6.refuse")
    kind = "refuse_basic_economy_modify"
    later = "Let me look at the options for you."
    leaked = [
        f"<think>{_PLAIN}</think>{later}",  # tagged
        f"{_PLAIN}</reasoning>{later}",  # the chat template opened the tag
        f"\u25c1think\u25b7{_PLAIN}\u25c1/think\u25b7{later}",
        f"{_REASONING}\n\n{later}",  # untagged, about the user in the third person
        '{"thought": "Basic economy flights cannot be modified, so decline.", "response": "' + later + '"}',
        f"Let me think. {_PLAIN}\n\n{later}",  # self-talk that never addresses the user
    ]
    for text in leaked:
        messages = _l6(AssistantMessage(role="assistant", content=text))
        assert not evidence_holds(kind, variant_record(variant, messages)), text  # strict's reader
        assert not explain_variant(variant, variant_record(variant, messages)).holds, text  # the variants' reader
        assert find_declines(kind, read_turns(messages)) == [], text
    # A reasoning field recorded beside the content is not read either.
    beside = AssistantMessage(role="assistant", content=later, raw_data={"message": {"reasoning_content": _REASONING}})
    assert not evidence_holds(kind, variant_record(variant, _l6(beside)))
    # The same reasoning followed by the decline said to the user: the decline counts, marked where it was said.
    for text in (f"<think>{_PLAIN}</think>{_SPOKEN}", f"{_REASONING}\n\n{_SPOKEN}",
                 f"{_SPOKEN}\n\nLet me think about what else I can do for you."):
        messages = _l6(AssistantMessage(role="assistant", content=text))
        assert evidence_holds(kind, variant_record(variant, messages)) and explain_variant(variant, variant_record(variant, messages)).holds, text
        (item,) = find_declines(kind, read_turns(messages))
        assert text[item.start : item.end] == _SPOKEN
    # A rule quoted to the user in the third person is speech: "when the customer chooses to change".
    quoted = ("Our policy offers compensation for a delay only when the customer chooses to change or cancel "
              "the reservation, so I can't offer you a certificate while you keep yours.")
    assert find_declines("declines_compensation", read_turns([AssistantMessage(role="assistant", content=quoted)]))


def test_a_conversation_is_read_once_and_an_edit_is_read_again():
    """The turns are built once per conversation (every verdict reads the same ones); a message edited in
    place, or another message list, is read anew."""
    from tau2.data_model.message import AssistantMessage, UserMessage

    from conversation_reading._evidence import read_turns

    messages = [UserMessage(role="user", content="Can I get compensation?"),
                AssistantMessage(role="assistant", content="<think>I should decline.</think>Let me check.")]
    first = read_turns(messages)
    assert read_turns(list(messages)) == first and read_turns(messages)[1] is first[1]  # the same turns, not rebuilt
    messages[1].content = "I'm sorry, compensation is not offered for this."
    again = read_turns(messages)
    assert again[1].text != first[1].text and "not offered" in again[1].text
    assert "decline" not in first[1].text  # the reasoning was never speech


def test_a_tool_result_is_normalised_when_its_text_is_first_read():
    """A tool's result is no reader's speech: its turn is built unread (#47) and normalised when its text or origin is
    first read, to what a turn built read holds; the turns compare, hash and print by what they hold."""
    from tau2.data_model.message import ToolMessage

    from conversation_reading._evidence import Turn

    raw = "It’s **basic‑economy**\\n| a | b |"
    turns = read_turns([UserMessage(role="user", content="hi"),
                        ToolMessage(id="t1", role="tool", content=raw, requestor="assistant")])
    said = normalise(raw)
    built = Turn(1, "tool", said.text, (), raw, said.origin)
    assert turns[1].origin == said.origin and turns[1].text == said.text == "It's basic-economy\n; a ; b ;"
    assert turns[1] == built and hash(turns[1]) == hash(built) and repr(turns[1]) == repr(built)
    assert turns[1] != Turn(1, "tool", raw, (), raw, range(len(raw) + 1))
    # only an unread turn's class reads a missing attribute by ``__getattr__``: a class with one has every attribute
    # read through it, unspecialised, and the readers read the turns' attributes most (#47)
    assert type(turns[0]) is Turn and not hasattr(Turn, "__getattr__") and hasattr(type(turns[1]), "__getattr__")


def test_an_agent_message_with_no_words_is_read_as_its_empty_text_normalised():
    """An agent's message with no words (a call alone: nearly half of the agent's messages) is built without
    normalising its empty text or reading its speech (a speed-up, #47): on every conversation of the shared runs, each
    such turn holds what normalising "" and reading its speech give, with its message's calls (and both kinds occur)."""
    from conversation_reading._evidence import _read_turns
    from conversation_reading._normalise import normalised, speech
    from conversation_reading._vocabulary import vocabulary
    from tests.conftest import REAL_RUNS, read_conversations

    v = vocabulary()
    text, origin = speech(*normalised(""), v.reasoning, v.aside, v.second_person)
    silent = spoken = 0
    for path in sorted(REAL_RUNS.glob("*.json")):
        for _, messages in read_conversations(path.name):
            for t in _read_turns(messages):
                if t.role != "assistant":
                    continue
                if t.raw:
                    spoken += 1
                    continue
                assert (t.text, t.origin, type(t.origin)) == (text, origin, type(origin))
                assert t.calls == tuple(messages[t.index].tool_calls or [])
                silent += 1
    assert silent > 200 and spoken > 200


def test_skipping_a_step_that_cannot_match_changes_nothing():
    """``normalise`` skips a step whose pattern needs a character the text lacks (a speed-up): on every
    message of the shared runs, and on texts made to reach each step (full-width tags that NFKC turns into
    ``<``, escapes, JSON reasoning fields, tables, emphasis, Kimi's and gpt-oss's markers), the result and its
    origin map equal those of every step run."""
    import json

    from conversation_reading._normalise import normalise
    from tests.conftest import REAL_RUNS

    texts = [
        "\uff1cthink\uff1eI should decline.\uff1c/think\uff1eHello", "Hi \uff1cthink\uff1ex\uff1c/think\uff1e there", "line\\none \\\"quoted\\\"",
        '{"thought": "decline it", "reply": "Sorry, you cannot."}', "| a | b |\n|---|---|\n| 1 | 2 |",
        "**Note** 1. Cancel 2. Book", "\u25c1think\u25b7x\u25c1/think\u25b7y", "<|channel|>analysis<|message|>x<|end|>hi",
        "It\u2019s \u2014 fine\u200b", "reasoning first</think>Then the answer", "\ufb01ne caf\u00e9 e\u0301 \u00bd x\u00a0y",
        # list items run together: one- and two-digit numbers, tabs, digits of another script, a 3-digit number
        "Options: 12. Book a new one 13) Cancel", "x \t 1) Foo \t2) \"Bar\"", "a \u0663. Book b \u0661\u0662) Cancel",
        "Do 123. Apples 4. Pears", "ok 1. Yes", "1. Yes 2. No", "\u2019 said 9) (it) 10. A",
        # outside ASCII only dashes and apostrophes (one for one), one that NFKC turns into another, one that makes a
        # list item of what follows
        "It\u2019s \u2011 fine \ufe58 ok \u2032", "It\u2019s 1. \u2019Book\u2019 it", "well \u2014 2) \u2018A\u2019",
    ]
    for path in sorted(REAL_RUNS.glob("*.json")):
        for sim in json.loads(path.read_text(encoding="utf-8"))["simulations"]:
            texts += [m["content"] for m in sim.get("messages") or [] if isinstance(m.get("content"), str)]
    assert len(texts) > 1000
    for text in texts:
        assert normalise(text) == normalise(text, guarded=False), text[:200]


def test_the_list_item_step_finds_where_its_pattern_first_matches():
    """``_inline_item_at`` (the list-item step's guard, and where its scan begins) answers where ``_INLINE_ITEM`` first
    matches, or None: on every message of the shared runs and on texts at each edge of the pattern (one, two and three
    digits, a digit, a newline or a no-break space before the blanks, another script's digits, the text's start)."""
    import json

    from conversation_reading._normalise import _INLINE_ITEM, _inline_item_at
    from tests.conftest import REAL_RUNS

    texts = [
        "x 1. Apple", "x\t 12) (b", "1. A", " 1. A", "x\n 1. A", "x5 1. A", "x 123. A", "ab  \u0661. B", "x\u00a01. A",
        "x 1.  (a", "ab 9) 'q", "a \u0663. Book b \u0661\u0662) Cancel", "x 1.A 2. B", "1. A 2. B", "9. x y 10) Z",
    ]
    for path in sorted(REAL_RUNS.glob("*.json")):
        for sim in json.loads(path.read_text(encoding="utf-8"))["simulations"]:
            texts += [m["content"] for m in sim.get("messages") or [] if isinstance(m.get("content"), str)]
    for text in texts:
        first = _INLINE_ITEM.search(text)
        assert _inline_item_at(text) == (first.start() if first else None), text[:200]


def test_the_pattern_gate_never_rules_out_a_text_its_pattern_matches():
    """A reader skips a text where a catalog pattern lacks a word it needs (``_gate``, a speed-up): on the units of
    every message of one shared run, each pattern the record's readers gate (claims, decline subjects and classes,
    offers, requests, compensation, leaked reasoning) matches only where the gate lets it; and it rules out most
    pairs, or it would save nothing. A text with a character an ASCII letter matches without being its lowercase
    (long s, dotless i) is never gated."""
    import json
    import re

    from conversation_reading._claims import claim_kinds
    from conversation_reading._gate import gateable, may_match
    from conversation_reading._units import _units
    from conversation_reading._vocabulary import vocabulary
    from tests.conftest import real_run

    v = vocabulary()
    patterns = [p for k in claim_kinds()[0] for p in k.patterns]
    patterns += [p for k in v.kinds.values() for p in (*k.subject, *k.declined_by, *k.indirect)]
    patterns += [o.pattern for offers in v.offers.values() for o in offers] + list(v.requests.values())
    patterns += [v.decline, v.compensation_request, v.compensation_offer, v.reasoning, v.aside, v.second_person]
    raw = json.loads(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text(encoding="utf-8"))
    texts = [u for sim in raw["simulations"] for m in sim["messages"] if isinstance(m.get("content"), str)
             for u in _units(normalise(m["content"]).text)]
    assert len(texts) > 5000 and len(patterns) > 60
    ruled_out = 0
    for text in texts:
        lowered, gated = text.lower(), gateable(text)
        for p in patterns:
            may = may_match(p, lowered, gated)
            ruled_out += not may
            assert may or not p.search(text), (p.pattern[:80], text[:200])
    assert ruled_out > 0.8 * len(texts) * len(patterns)
    assert not gateable("the \u017fame") and not gateable("D\u0131nner") and gateable("a \u2192 b")
    assert re.search("same", "the \u017fame", re.IGNORECASE)  # why: "s" matches the long s, whose lowercase it is not


def test_no_text_is_gated_whose_lowercase_loses_what_an_ascii_letter_matches():
    """Every character outside ASCII that an ASCII letter matches case-insensitively either lowercases to that
    letter or keeps its text out of the gate (all of Unicode scanned, so a new Python's case table is checked)."""
    import re
    import string

    from conversation_reading._gate import gateable, may_match

    letter = re.compile("[a-z]", re.IGNORECASE)
    for code in range(128, 0x110000):
        ch = chr(code)
        if letter.fullmatch(ch):
            matched = [a for a in string.ascii_lowercase if re.fullmatch(a, ch, re.IGNORECASE)]
            assert ch.lower() in matched or not gateable(f"a {ch} b"), hex(code)
    asked = re.compile(r"\bis this right\b", re.IGNORECASE)
    text = "\u0130s this right?"
    assert asked.search(text) and may_match(asked, text.lower(), gateable(text))


def test_the_compiled_gate_answers_as_walking_the_requirements():
    """``holds`` runs a pattern's requirements compiled into one expression (a speed-up, #47): on the units of every
    message of one shared run, for every pattern the readers gate, it answers what walking them answers; and
    both answers occur."""
    import json

    from conversation_reading._claims import claim_kinds
    from conversation_reading._gate import holds, needs, walked
    from conversation_reading._units import _units
    from conversation_reading._vocabulary import vocabulary
    from tests.conftest import real_run

    v = vocabulary()
    patterns = [p for k in claim_kinds()[0] for p in k.patterns]
    patterns += [p for k in v.kinds.values() for p in (*k.subject, *k.declined_by, *k.indirect)]
    patterns += [o.pattern for offers in v.offers.values() for o in offers] + list(v.requests.values())
    patterns += [v.decline, v.compensation_request, v.compensation_offer, v.reasoning, v.aside, v.second_person]
    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text(encoding="utf-8"))
    texts = [u.lower() for sim in raw["simulations"] for m in sim["messages"] if isinstance(m.get("content"), str)
             for u in _units(normalise(m["content"]).text)]
    answers = set()
    for p in patterns:
        required = needs(p)
        for text in texts:
            answer = holds(required, text)
            assert answer == walked(required, text), (p.pattern[:80], text[:200])
            answers.add(answer)
    assert answers == {True, False}


def test_an_unchanged_texts_origin_map_is_its_own_range():
    """``normalised`` hands an unchanged text a range built once for its length (``UNCHANGED``, #47): each is the
    ``range(len + 1)`` it would build, below the table's end and past it."""
    from conversation_reading._normalise import UNCHANGED, normalised

    assert len(UNCHANGED) == 2048
    for n, built in enumerate(UNCHANGED):
        assert type(built) is range and built == range(n + 1)
    for text in ("", "a", "x" * 2046, "x" * 2047, "x" * 2048, "x" * 5000, "a | b", "**a**" + "y" * 3000):
        said, origin = normalised(text)
        assert type(origin) is range or said != text
        if said == text:
            assert origin == range(len(text) + 1)
