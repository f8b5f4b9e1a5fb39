"""Pictures for the viewer: ``rgb_array`` frames as PNG data URIs, and replays of logged LLM
episodes (a text episode is fixed by its seed and the answers sent, so it can be drawn later)."""

from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np
from gymnasium.error import DependencyNotInstalled

from hiddengrid.registry import definition_of
from hiddengrid.text.env import make_text


def png_data_uri(rgb: np.ndarray) -> str:
    try:
        from PIL import Image
    except ImportError as exc:
        raise DependencyNotInstalled(
            'pictures in the report need Pillow: pip install "hiddengrid[render]"'
        ) from exc
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(rgb, dtype=np.uint8)).save(buffer, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


class ReplayMismatch(RuntimeError):
    """Replaying the logged answers did not give the logged actions (the env changed since)."""


def replay_frames(record: dict[str, Any], env_kwargs: dict[str, Any] | None = None) -> list[str]:
    """One picture per state the model saw (after reset and after each valid action);
    ``env_kwargs`` are the env arguments the run played with."""
    env_kwargs = env_kwargs or {}
    env_id = record["env"]
    render = definition_of(env_id).render_rgb
    tenv = make_text(env_id, max_invalid=None, **env_kwargs)
    try:
        tenv.reset(seed=record["seed"])
        frames = [png_data_uri(render(tenv.base.batch, 0))]
        for turn in record["turns"]:
            _, _, _, _, info = tenv.step(turn.get("sent", turn["answer"]))
            if "invalid_action" in info and turn.get("fallback") is not None:
                _, _, _, _, info = tenv.step(turn["fallback"])  # played in the answer's place
            valid = "invalid_action" not in info
            if valid != (turn["action"] is not None) or (
                valid and tenv.format_action(info["action"]) != turn["action"]
            ):
                raise ReplayMismatch(f"{env_id} seed {record['seed']}: replay differs from log")
            if valid:
                frames.append(png_data_uri(render(tenv.base.batch, 0)))
        return frames
    finally:
        tenv.close()
