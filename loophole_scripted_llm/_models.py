"""The scripted models' entries in litellm's cost map."""

from __future__ import annotations


def register_scripted_models() -> None:
    """Tell litellm the scripted models cost nothing, so its per-call cost lookup finds them directly
    instead of searching its whole cost map for an unknown model (a few ms per completion)."""
    import litellm

    entry = {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0, "litellm_provider": "openai", "mode": "chat",
             "max_tokens": 1_000_000, "max_input_tokens": 1_000_000, "max_output_tokens": 1_000_000}
    litellm.register_model({name: dict(entry) for name in (
        "scripted-agent", "scripted-user", "openai/scripted-agent", "openai/scripted-user"
    )})

