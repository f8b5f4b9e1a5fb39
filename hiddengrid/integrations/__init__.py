"""Adapters between hiddengrid and other RL libraries (SB3, TorchRL, RLlib, PufferLib, Ray).

Each adapter is its own module and imports its library only when used, so none of them is a
dependency of the package. :mod:`hiddengrid.integrations.ids` makes ids that work in worker
processes; :mod:`hiddengrid.integrations.observation` puts the action mask into the
observation and flattens observations for libraries without ``Dict`` support.
"""

from hiddengrid.integrations.ids import make_env, make_vec_env, module_id

__all__ = ["make_env", "make_vec_env", "module_id"]
