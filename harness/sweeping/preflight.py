"""Checks before a sweep starts Ray: keys set, endpoints reachable, and the scripted server started."""

from __future__ import annotations

import os

from harness.config import ModelSpec, SweepConfig
from harness.errors import EndpointError
from loophole_base import HarnessInputError

SCRIPTED = "scripted://local"  # api_base that starts the project's loopback scripted server


def check_keys(config: SweepConfig) -> None:
    """A key named by ``api_key_env`` must be set before any trial runs (not found out trial by trial)."""
    named: list[tuple[str, ModelSpec]] = [(f"agents.{i}", a) for i, a in enumerate(config.agents)]
    named.append(("user_simulator", config.user_simulator))
    if config.judge is not None:
        named.append(("judge", config.judge))
    for where, spec in named:
        if spec.api_key_env and not os.environ.get(spec.api_key_env):
            raise HarnessInputError(
                f"field '{where}.api_key_env': environment variable {spec.api_key_env} is not set (model {spec.model})"
            )


def probe_endpoints(config: SweepConfig) -> None:
    """Connect (TCP only, no request) to every configured ``api_base`` before Ray starts: a refused
    connection or an unknown host stops the sweep in a second, with the endpoint named."""
    import socket
    from urllib.parse import urlsplit

    specs = [*config.agents, config.user_simulator, *([config.judge] if config.judge else [])]
    for spec in specs:
        base = spec.args.api_base
        if not base or base == SCRIPTED:
            continue
        url = urlsplit(base)
        if url.hostname is None:
            continue
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            socket.create_connection((url.hostname, port), timeout=10).close()
        except OSError as exc:
            raise EndpointError(
                f"model {spec.model} at {base} cannot be reached (cannot connect: {exc.strerror or exc}): "
                "check args.api_base in the sweep config, then run the sweep again: it stopped before any "
                "trial ran"
            ) from None


def with_scripted_server(config: SweepConfig):
    """``api_base: scripted://local`` starts the project's loopback scripted server for this sweep; returns
    the config pointed at it, and the server to stop afterwards (None when no model uses it)."""
    specs = [*config.agents, config.user_simulator]
    if not any(s.args.api_base == SCRIPTED for s in specs):
        return config, None
    from pydantic import SecretStr

    from loophole_scripted_llm import ScriptedLLMServer

    server = ScriptedLLMServer().start()
    config = config.model_copy(deep=True)
    for spec in [*config.agents, config.user_simulator]:
        if spec.args.api_base == SCRIPTED:
            spec.args.api_base = server.api_base
            spec.args.api_key = spec.args.api_key or SecretStr("scripted-no-key")
    return config, server
