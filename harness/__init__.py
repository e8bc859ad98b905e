"""The application: sweeps, ingest and rescoring, agents, the scripted LLM server and the CLI.

The gymnasium environments register when ``harness.gym`` is imported, so that importing the harness (or the
store below it) never loads gymnasium.
"""

from harness._quiet import quiet_imports

quiet_imports()


def __getattr__(name: str) -> object:  # ``from harness import rescore`` without loading it on ``import harness``
    if name == "rescore":
        from harness.api import rescore

        return rescore
    raise AttributeError(f"module 'harness' has no attribute {name!r}")
