"""One episode of an agent as an animated GIF (needs Pillow: ``hiddengrid[render]``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import DependencyNotInstalled

from hiddengrid.core.actions import is_int_scalar
from hiddengrid.core.rng import check_seed
from hiddengrid.registry import definition_of

PILLOW_MISSING = 'writing GIFs needs Pillow: pip install "hiddengrid[render]"'


def require_pillow() -> None:
    """Raises Gymnasium's ``DependencyNotInstalled`` saying what to install."""
    try:
        import PIL.Image  # noqa: F401
    except ImportError as exc:
        raise DependencyNotInstalled(PILLOW_MISSING) from exc


def record_episode(
    env_id: str,
    agent_name: str,
    out: str | Path,
    seed: int = 0,
    fps: int = 4,
    env_kwargs: dict[str, Any] | None = None,
) -> tuple[int, str, float]:
    """Writes the episode to ``out`` (a ``.gif``); returns (frames, outcome, return)."""
    require_pillow()
    from PIL import Image

    definition = definition_of(env_id)
    if agent_name not in definition.agents:
        raise ValueError(
            f"{env_id} has no agent {agent_name!r}; it has {sorted(definition.agents)}"
        )
    if not is_int_scalar(fps) or fps < 1:  # type: ignore[operator]
        raise ValueError(f"fps must be a positive int, got {fps!r}")
    if Path(out).suffix.lower() != ".gif":
        raise ValueError(f"out must name a .gif file, got {str(out)!r}")
    seed = check_seed(seed)
    env = gym.make_vec(
        env_id, num_envs=1, vectorization_mode="vector_entry_point", **(env_kwargs or {})
    )
    base = env.unwrapped
    agent = definition.agents[agent_name](base, seed=seed)
    obs, _ = env.reset(seed=seed)
    frames = [definition.render_rgb(base.batch, 0)]
    starts = np.ones(1, dtype=bool)
    total = 0.0
    outcome = ""
    while True:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, starts))
        agent.observe(reward, terminated, truncated)
        starts = np.zeros(1, dtype=bool)
        total += float(reward[0])
        frames.append(definition.render_rgb(base.batch, 0))
        if terminated[0] or truncated[0]:
            outcome = str(info["outcome"][0])
            break
    images = [Image.fromarray(f) for f in frames]
    durations = [int(1000 / int(fps))] * (len(images) - 1) + [2000]  # hold the last frame
    images[0].save(
        out, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False
    )
    env.close()
    return len(frames), outcome, total
