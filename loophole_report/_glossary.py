"""The report's glossary: one short definition for each term the page uses, shown near its top.

The page shows the entries whose term (or one of its other spellings) occurs in its text, in this order; the
detail behind each is in docs/report.md.
"""

from __future__ import annotations

import re

# (term, other spellings the page uses, definition): the words a reader meets in the tables and captions
GLOSSARY: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("single gold", ("single-gold",), "tau2's own gold: a trial passes when tau2's evaluator scores it 1."),
    ("reading", ("readings",), "one defensible reading of a policy loophole, scored as a gold variant (its id, "
     "e.g. L3L4.strict)."),
    ("multi-gold", (), "a trial passes when the single gold or any reading credits it."),
    ("strict", (), "a single-gold pass that was earned: every gold write made as the gold makes it, and never on a "
     "broken gold."),
    ("upper", ("counting uncertain",), "multi-gold counting the uncertain credits too: the band's upper end."),
    ("uncertain credit", ("uncertain credits",), "a reading's credit whose evidence is weaker than its rule asks; "
     "the viewer lists each one."),
    ("band", (), "per agent, strict ≤ single ≤ multi ≤ upper: how far the success rate moves with the gold."),
    ("flip", ("flips",), "a trial the single gold fails and a reading credits."),
    ("loophole task", ("loophole tasks",), "a task where the catalog finds a policy loophole (more than one "
     "defensible reading)."),
    ("cell", ("cells",), "one agent on one task: the trials of that pair."),
    ("95% CI", ("bootstrap clustered by task",), "a 95% interval from a bootstrap that resamples tasks, then "
     "the trials within them (trials of one task are not independent)."),
    ("pass^k", (), "the chance that all k trials of a task pass, tau2's estimator, averaged over tasks."),
    ("broken gold", ("broken golds",), "a gold whose own writes raise on replay: no trial of its task is a strict "
     "pass."),
    ("do-nothing ceiling", (), "the share of tasks a greeting and a goodbye pass under the single gold."),
)


def _pattern(spellings: tuple[str, ...]) -> re.Pattern[str]:
    words = "|".join(re.escape(s) for s in sorted(spellings, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{words})(?![\w-])", re.IGNORECASE)


def uses(term: str, others: tuple[str, ...], text: str) -> bool:
    """Whether ``text`` uses the term, in any of its spellings, as a word of its own ("cell" not in "cells"
    unless listed; "single gold" not inside "single-gold")."""
    return bool(_pattern((term, *others)).search(text))


def glossary(text: str) -> list[dict[str, str]]:
    """The entries for the terms ``text`` (the page's words) uses, in ``GLOSSARY``'s order."""
    return [{"term": t, "definition": d} for t, others, d in GLOSSARY if uses(t, others, text)]
