"""hiddengrid: environments in which an agent must discover a hidden rule from feedback.

``import hiddengrid`` registers every id with Gymnasium; ``gymnasium.make(id)`` gives a single
env and ``gymnasium.make_vec(id, num_envs=N, vectorization_mode="vector_entry_point")`` the
native batched engine. ``hiddengrid.train(id, ...)`` trains PPO on it (the ``train`` extra).
"""

from hiddengrid.registry import ENV_IDS, definition_of, register_all
from hiddengrid.text.env import TextEnv, make_text

__version__ = "0.1.0"
__all__ = ["ENV_IDS", "TextEnv", "__version__", "definition_of", "make_text"]

register_all()


def __getattr__(name: str) -> object:
    # ``hiddengrid.train(...)`` without importing torch on ``import hiddengrid``
    if name == "train":
        import importlib

        return importlib.import_module("hiddengrid.train")
    raise AttributeError(f"module 'hiddengrid' has no attribute {name!r}")
