"""A loopback OpenAI-compatible server that answers from a script: tests talk to it through litellm."""

from harness.scripted_llm._server import Faults, ScriptedLLMServer

__all__ = ["Faults", "ScriptedLLMServer"]
