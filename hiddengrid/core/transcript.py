"""Numeric agents playing through the text env, and episode transcripts for the docs.

``TextPlayer`` lets any batch agent (oracle, heuristic, random) answer a text env in words, so
the text layer can be checked against the numeric env and an episode can be shown exactly as a
language model would see it.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from hiddengrid.core.text_env import TextEnv, make_text
from hiddengrid.registry import definition_of


class TextPlayer:
    """Drives a batch agent (built over the text env's batch of one) with text answers."""

    def __init__(self, tenv: TextEnv, agent_name: str, seed: int = 0) -> None:
        base = tenv.base
        view = SimpleNamespace(
            num_envs=1,
            batch=base.batch,
            single_action_space=base.action_space,
            config=base.config,
            unwrapped=base,
        )
        if hasattr(base, "action_masks"):
            view.action_masks = lambda: np.asarray(base.action_masks())[None]
        self.tenv = tenv
        self.agent = definition_of(tenv.env_id).agents[agent_name](view, seed=seed)
        self.starts = np.ones(1, dtype=bool)

    def answer(self, numeric_observation: dict[str, Any]) -> str:
        batched = {key: np.asarray(v)[None] for key, v in numeric_observation.items()}
        action = self.agent.act(batched, self.starts)[0]
        self.starts = np.zeros(1, dtype=bool)
        return self.tenv.format_action(action)


def transcript(
    env_id: str, seed: int = 0, agent: str = "oracle", invalid_first: bool = True
) -> str:
    """One episode as Markdown: the prompt, then each answer and what the env said back."""
    tenv = make_text(env_id)
    text, info = tenv.reset(seed=seed)
    player = TextPlayer(tenv, agent, seed=seed)
    lines = [
        f"### {env_id} (seed {seed}, agent `{agent}`)",
        "",
        "**Prompt:**",
        "",
        "```text",
        text,
        "```",
        "",
    ]
    if invalid_first:
        reply, *_ = tenv.step("I think I should look around first.")
        lines += [
            "**Answer:** `I think I should look around first.`",
            "",
            "```text",
            reply,
            "```",
            "",
        ]
    obs = info["numeric_observation"]
    total = 0.0
    while True:
        answer = player.answer(obs)
        reply, reward, terminated, truncated, info = tenv.step(answer)
        total += reward
        obs = info["numeric_observation"]
        lines += [f"**Answer:** `{answer}` (reward {reward:g})", "", "```text", reply, "```", ""]
        if terminated or truncated:
            break
    lines.append(f"Outcome: `{info['outcome']}`, return {total:g}, {tenv.steps} steps.")
    return "\n".join(lines)
