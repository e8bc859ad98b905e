"""Running and scoring tau2-bench trajectories, single-gold and multi-gold."""

from harness._quiet import quiet_imports

quiet_imports()
