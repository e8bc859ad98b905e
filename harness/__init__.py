"""The application: sweeps, rescoring, agents, the scripted user, the application layer and the CLI.

The Python API is the application layer the CLI verbs call (``harness.rescore``, ``harness.leaderboard``,
``harness.analyze``, ``harness.report``, ``harness.view``, ``harness.sweep``), listed in ``__init__.pyi`` and
loaded on first use. The gymnasium environments register when ``harness.gym`` is imported, so that importing
the harness (or the store below it) never loads gymnasium.
"""

import lazy_loader

from harness._quiet import quiet_imports

quiet_imports()

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
