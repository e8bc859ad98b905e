"""Running and scoring tau2-bench trajectories, single-gold and multi-gold.

Importing it registers the gymnasium environments ``tau2/airline-v0`` and ``tau2/retail-v0``
(registration only; tau2 is imported when an environment is made).
"""

from harness._quiet import quiet_imports

quiet_imports()


def _register_gym() -> None:
    try:
        import gymnasium as gym
    except ImportError:  # gymnasium is a dependency; a broken install should not break the CLI
        return
    for domain, env_id in {"airline": "tau2/airline-v0", "retail": "tau2/retail-v0"}.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="harness.gym:LoopholeAgentGymEnv", kwargs={"domain": domain})


_register_gym()
