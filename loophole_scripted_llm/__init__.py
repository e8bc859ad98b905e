"""A loopback OpenAI-compatible server that answers from a script: tests talk to it through litellm."""

from loophole_scripted_llm._server import Faults, ScriptedLLMServer

__all__ = ["Faults", "ScriptedLLMServer"]


def register_scripted_models() -> None:
    """Tell litellm the scripted models cost nothing, so its per-call cost lookup finds them directly
    instead of searching its whole cost map for an unknown model (a few ms per completion)."""
    import litellm

    entry = {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "litellm_provider": "openai", "mode": "chat",
             "max_tokens": 1_000_000, "max_input_tokens": 1_000_000, "max_output_tokens": 1_000_000}
    litellm.register_model({name: dict(entry) for name in (
        "scripted-agent", "scripted-user", "openai/scripted-agent", "openai/scripted-user"
    )})


__all__ += ["register_scripted_models"]
