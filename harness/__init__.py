"""The application: sweeps, ingest and rescoring, agents, the scripted LLM server and the CLI.

The gymnasium environments register when ``harness.gym`` is imported, so that importing the harness (or the
store below it) never loads gymnasium.
"""

from harness._quiet import quiet_imports

quiet_imports()
