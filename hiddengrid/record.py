"""One episode of an agent as an animated GIF or as the report's step-through HTML viewer
(both need Pillow: ``hiddengrid[render]``)."""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class Recording:
    frames: list[np.ndarray] = field(default_factory=list)  # one per state, reset included
    observations: list[str] = field(default_factory=list)  # the text of each state shown
    actions: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    outcome: str = ""
    total: float = 0.0


def play_recorded(
    env_id: str, agent_name: str, seed: int = 0, env_kwargs: dict[str, Any] | None = None
) -> Recording:
    """Plays one episode on the vector env (batch of one) and keeps every state."""
    definition = definition_of(env_id)
    if agent_name not in definition.agents:
        raise ValueError(
            f"{env_id} has no agent {agent_name!r}; it has {sorted(definition.agents)}"
        )
    seed = check_seed(seed)
    env = gym.make_vec(
        env_id, num_envs=1, vectorization_mode="vector_entry_point", **(env_kwargs or {})
    )
    base = env.unwrapped
    text = definition.text
    agent = definition.agents[agent_name](base, seed=seed)
    obs, _ = env.reset(seed=seed)
    rec = Recording()

    def keep(o: dict[str, Any]) -> None:
        rec.frames.append(definition.render_rgb(base.batch, 0))
        rec.observations.append(text.observation_text({k: v[0] for k, v in o.items()}, base.config))

    keep(obs)
    starts = np.ones(1, dtype=bool)
    while True:
        action = agent.act(obs, starts)
        rec.actions.append(text.format_action(action[0], base.config))
        obs, reward, terminated, truncated, info = env.step(action)
        agent.observe(reward, terminated, truncated)
        starts = np.zeros(1, dtype=bool)
        rec.rewards.append(float(reward[0]))
        rec.total += float(reward[0])
        keep(obs)
        if terminated[0] or truncated[0]:
            rec.outcome = str(info["outcome"][0])
            break
    env.close()
    return rec


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

    if not is_int_scalar(fps) or fps < 1:  # type: ignore[operator]
        raise ValueError(f"fps must be a positive int, got {fps!r}")
    if Path(out).suffix.lower() != ".gif":
        raise ValueError(f"out must name a .gif file, got {str(out)!r}")
    rec = play_recorded(env_id, agent_name, seed, env_kwargs)
    images = [Image.fromarray(f) for f in rec.frames]
    durations = [int(1000 / fps)] * (len(images) - 1) + [2000]  # hold the last frame
    images[0].save(
        out, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False
    )
    return len(rec.frames), rec.outcome, rec.total


def record_episode_html(
    env_id: str,
    agent_name: str,
    out: str | Path,
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
) -> tuple[int, str, float]:
    """Writes the episode as the report's self-contained step-through page."""
    from hiddengrid.report.frames import png_data_uri
    from hiddengrid.report.page import write_episode_page

    rec = play_recorded(env_id, agent_name, seed, env_kwargs)
    success = bool(definition_of(env_id).is_success(rec.outcome, rec.total))
    steps = [
        {
            "observation": rec.observations[k],
            "answer": None,
            "action": rec.actions[k],
            "invalid": None,
            "reward": rec.rewards[k],
            "frame": k,
            "meta": "",
        }
        for k in range(len(rec.actions))
    ]
    episode = {
        "label": f"{env_id.split('/')[-1]} · {agent_name} · seed {seed} · {rec.outcome}",
        "meta": f"{env_id}, seed {seed}, agent {agent_name}: outcome {rec.outcome}, "
        f"return {rec.total:g}, {len(rec.actions)} steps",
        "system": None,
        "frames": [png_data_uri(f) for f in rec.frames],
        "no_frames_reason": "",
        "steps": steps,
        "final": rec.observations[-1],
        "final_frame": len(rec.frames) - 1,
        "outcome": rec.outcome,
        "return": rec.total,
        "success": success,
    }
    # The episode's meta line is shown above the viewer already: the page adds none.
    write_episode_page(out, f"hiddengrid: {env_id} played by {agent_name}", "", episode)
    return len(rec.frames), rec.outcome, rec.total
