"""The record's speed-ups (#47) answer as what they replace: a value named as a word of its own tested by hand
(``_boundary.named_in``) as the regex it stands for, a claim kind's one gate (``_gate.holds_any``) as its
patterns' gates one by one, and a run's spellings (``_gate.needs``) are whole phrases a text must hold."""

from __future__ import annotations

import json
import random
import re

from conversation_reading._boundary import named_in
from conversation_reading._claims import claim_kinds
from conversation_reading._evidence import mentions, negated
from conversation_reading._gate import holds, holds_any, needs
from conversation_reading._normalise import normalise
from conversation_reading._policy_claims import _LIMITS, _payment_limits
from conversation_reading._replies import _REFUSAL_OPENING, agrees
from conversation_reading._units import _units, split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import real_run


def _regex_named(form: str, text: str) -> bool:
    return re.search(r"(?<![\w.])" + re.escape(form) + r"(?![\w]|\.\d)", text) is not None


def test_named_in_answers_as_the_boundary_regex():
    cases = [("ab", "ab"), ("ab", "xab"), ("ab", ".ab"), ("ab", " ab."), ("ab", " ab.5"), ("ab", "ab_"), ("ab", "ab\u0663"),
             ("12.5", "$12.50"), ("12.5", "12.5 "), ("", ""), ("", "a"), ("#1", "x #1 y"), ("ab", "ab ab1 ab")]
    rng = random.Random(7)
    alphabet = "ab1._ -\n$\u00e9\u0663x#"
    cases += [("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))),
               "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))) for _ in range(20000)]
    answers = set()
    for form, text in cases:
        answer = named_in(form, text)
        assert answer == _regex_named(form, text), (form, text)
        answers.add(answer)
    assert answers == {True, False}


def test_holds_any_answers_as_each_pattern_gate_and_runs_are_whole_phrases():
    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text(encoding="utf-8"))
    texts = [u.lower() for sim in raw["simulations"] for m in sim["messages"] if isinstance(m.get("content"), str)
             for u in _units(normalise(m["content"]).text)]
    answers = set()
    for kind in claim_kinds()[0]:
        patterns = tuple(kind.patterns)
        may = holds_any(patterns)
        for text in texts:
            answer = may(text)
            assert answer == any(holds(needs(p), text) for p in patterns), (kind.name, text[:200])
            answers.add(answer)
    assert answers == {True, False}
    # "the (user|customer)" needs the phrase whole: the words apart ("the user's ... the ID") do not hold it
    reasoning = needs(vocabulary().reasoning)
    assert not holds(reasoning, "please tell me the id of the reservation for your user profile")
    assert holds(reasoning, "i should tell the user that the flight cannot be changed")


def test_a_message_the_decline_gate_skips_holds_no_decline():
    """``Units.may_decline`` (read before any unit of an agent message is scanned for a decline) rules out only a
    message none of whose units declines on the clause, directly or not: on every agent message of one shared run and
    on lists a colon joins to their sentence (the gate reads the joined units there, the text itself elsewhere); and
    it rules out most pairs, or it would save nothing."""
    from conversation_reading._evidence import _declines
    from conversation_reading._units import Units

    raw = json.loads(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text(encoding="utf-8"))
    texts = [normalise(m["content"]).text for sim in raw["simulations"] for m in sim["messages"]
             if m.get("role") == "assistant" and isinstance(m.get("content"), str)]
    # a decline whose words only the joined list holds whole ("not" and "permitted" are items, each on its line)
    texts += ["Note:\n- Changing the return destination to Las Vegas (LAS) would alter the trip's destination, which is"
              " not\n- permitted for modifications.", "Note:\n- Unfortunately, I'm unable\n- to make the change you're"
              " requesting.", "I can't offer compensation for either:\n- changing your flight\n- cancelling it"]
    kinds = list(vocabulary().kinds.values())
    ruled_out = declined = 0
    for text in texts:
        cut = Units()
        for kind in kinds:
            declines = any(_declines(kind, u, direct=d) for u in cut.of(text) for d in (True, False))
            declined += declines
            may = cut.may_decline(kind, text)
            ruled_out += not may
            assert may or not declines, (kind.name, text[:200])
    assert declined and ruled_out > 0.8 * len(texts) * len(kinds)
def _agrees_ungated(reply: str) -> bool:
    """``_replies.agrees`` without its gate: the slow path it stands for."""
    v = vocabulary()
    if _REFUSAL_OPENING.match(reply) or mentions(v.withdrawal, reply):
        return False
    return any(not negated(s, m.start()) and not s.rstrip().endswith("?")
               for s in split_sentences(reply) for m in v.agreement.finditer(s))


def test_agrees_answers_as_its_ungated_reading():
    """The gate on the agreement words (``_gate``) passes over replies without them, as the scan would."""
    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text(encoding="utf-8"))
    replies = [normalise(m["content"]).text for sim in raw["simulations"] for m in sim["messages"]
               if m.get("role") == "user" and isinstance(m.get("content"), str)]
    replies += ["Yes, please go ahead.", "No, that's not okay.", "Is that okay?", "Okay.", "\u0130t's fine, yes."]
    answers = [agrees(r) for r in replies]
    assert answers == [_agrees_ungated(r) for r in replies]
    assert set(answers) == {True, False}


def test_payment_limit_gate_never_passes_over_a_plan_past_a_limit():
    """``_policy_claims._payment_limits`` returns at once where no kind of id occurs more often than its limit: a
    text with more distinct ids of a kind than the limit always holds its prefix more often than that."""
    rng = random.Random(3)
    pieces = ["gift_card_", "credit_card_", "1", "23", " ", "_", "x", "gift_card_7 ", "credit_card_7 ", ", ", "Gift_card_2",
              " gift_card_4 ", " gift_card_5 ", " credit_card_8 ", " credit_card_9 "]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(20000)]
    over = 0
    for text in texts:
        ids_over = any(len(set(re.findall(rf"\b{source}_\d+\b", text))) > limit for source, limit in _LIMITS.items())
        counted = any(text.count(f"{source}_") > limit for source, limit in _LIMITS.items())
        assert counted or not ids_over, text
        over += ids_over
    assert over > 100
    plan = "I'll charge credit_card_1 for $50 and credit_card_2 for the rest."
    m = re.search("credit_card_1", plan)
    assert m is not None and _payment_limits(plan, m, plan, None) is not None  # type: ignore[arg-type]
    one = plan.replace("credit_card_2", "gift_card_2")
    assert _payment_limits(one, m, one, None) is None  # type: ignore[arg-type]


def test_a_word_group_without_the_words_that_hold_another_answers_as_the_whole_group():
    """``_gate._group`` drops each word of a group that holds another of its words (#47): on random groups over a
    small alphabet (so words often hold one another) and random texts, one of the kept words occurs in a text
    exactly where one of the group's words does; and it drops some, or it would save nothing."""
    from conversation_reading._gate import _group

    rng = random.Random(11)
    dropped = 0
    answers = set()
    for _ in range(3000):
        words = {"".join(rng.choice("ab ") for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 5))}
        kept = _group(words)
        assert kept <= words and kept
        dropped += len(words) - len(kept)
        for _ in range(5):
            text = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 8)))
            answer = any(w in text for w in kept)
            assert answer == any(w in text for w in words), (sorted(words), sorted(kept), text)
            answers.add(answer)
    assert dropped > 1000 and answers == {True, False}
    # a catalog group: "baggage" holds "bag", so the gate tests "bag" alone
    assert frozenset({"bag"}) in needs(re.compile(r"\b(?:bags?|baggages?)\b", re.IGNORECASE))


def test_a_run_needs_its_tail_after_a_branch_and_the_gate_still_passes_every_match():
    """A run with a branch of words before its last one needs one of its tails too (the literals before that last
    branch on: " the user", " the customer"), a group of fewer words that most texts fail first (#47); the gate
    still passes every text the pattern matches."""
    pattern = re.compile(r"\b(?:tell|ask|remind) the (?:user|customer)\b", re.IGNORECASE)
    required = needs(pattern)
    assert frozenset({" the user", " the customer"}) in required
    assert required[0] == frozenset({" the user", " the customer"})  # the fewest words: tested first
    for text in ("Tell the user no.", "please ASK THE CUSTOMER", "remind the customer", "tell the agent", "the user"):
        assert holds(required, text.lower()) or not pattern.search(text), text
    assert holds(required, "remind the customer") and not holds(required, "tell the agent about it")


def test_negated_over_a_lowered_ascii_prefix_answers_as_over_the_text():
    """``negated`` splits an ASCII text's prefix lowered, by ``_CLAUSE_BREAK``'s lowercase twin (#47): on every word
    of the agent's and the user's sentences of one shared run, and on capitalised clause breaks and negators, it
    answers as the split of the text as written; and both answers occur."""
    from conversation_reading._evidence import _CLAUSE_BREAK, _NEGATION_REACH

    def written(text: str, start: int, markers: re.Pattern[str] | None = None) -> bool:
        clause = _CLAUSE_BREAK.split(text[:start])[-1]
        neg = markers or vocabulary().negation
        return any(neg.fullmatch(w.strip(".,!?\"'*()").lower()) for w in clause.split()[-_NEGATION_REACH:])

    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text(encoding="utf-8"))
    texts = [s for sim in raw["simulations"] for m in sim["messages"] if isinstance(m.get("content"), str)
             for s in split_sentences(normalise(m["content"]).text)]
    texts += ["We do NOT refund this, BUT we can rebook it.", "We do NOT refund BUT rebook it", "No refund HOWEVER a rebooking", "No, HOWEVER the bags are free.", "I CANNOT add bags (sorry)",
              "It is Never allowed; Yet it may be", "Without insurance \u2014 NOT covered", "caf\u00e9 NOT open BUT fine"]
    # random texts of clause breaks (capitalised too), dashes, spaces, long words and words outside ASCII
    rng = random.Random(5)
    pieces = ["not", "no", "but", "BUT", "yet", "debut", "though", "-", "--", " - ", ",", ";", "\u2014", "x", "Never",
              "if", "  ", "\t", "\u00e9t\u00e9", "word", "a" * 30, "Extraordinarily" * 3]
    texts += ["".join(rng.choice(pieces) + rng.choice(["", " ", " ", "  "]) for _ in range(rng.randint(10, 60)))
              for _ in range(400)]
    answers = set()
    for text in texts:
        for m in re.finditer(r"\w+", text):
            for markers in (None, vocabulary().hypothetical):
                answer = negated(text, m.start(), markers)
                assert answer == written(text, m.start(), markers), (text, m.start())
                answers.add(answer)
    assert answers == {True, False}


def _witnesses(requirements: list) -> list[str]:
    """Texts that hold ``requirements``: each word of each group and each alternative of each branch in turn, the
    others held by their first witness (so every word a compiled test names is what one text holds)."""
    each = [sorted(r) if isinstance(r, frozenset) else [t for alt in r for t in _witnesses(list(alt))]
            for r in requirements]
    firsts = [w[0] for w in each]
    return [" ".join([*firsts[:i], w, *firsts[i + 1:]]) for i, ws in enumerate(each) for w in ws] or [""]


def test_the_compiled_gate_holds_on_every_word_its_requirements_name():
    """A pattern's compiled gate (a branch tested first by its words less those that hold another: "the user", not
    "the user's request") holds on texts holding one word of each requirement, word by word, as walking them does:
    for the patterns the readers gate (a text from the runs need not name every word)."""
    from conversation_reading._gate import walked

    v = vocabulary()
    patterns = [p for k in claim_kinds()[0] for p in k.patterns]
    patterns += [p for k in v.kinds.values() for p in (*k.subject, *k.declined_by, *k.indirect)]
    patterns += [v.decline, v.compensation_request, v.compensation_offer, v.reasoning, v.aside, v.second_person]
    tried = 0
    for p in patterns:
        required = needs(p)
        for text in _witnesses(list(required)):
            assert walked(required, text), (p.pattern[:80], text)
            assert holds(required, text), (p.pattern[:80], text)
            tried += 1
    assert tried > 1000
