"""A loopback OpenAI-compatible server that answers from a script: tests talk to it through litellm."""

from ._models import (
    register_scripted_models,
)
from ._server import (
    Faults,
    ScriptedLLMServer,
)

__all__ = [
    "Faults",
    "register_scripted_models",
    "ScriptedLLMServer",
]
