"""The optional pygame window behind ``render_mode="human"``."""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np
from gymnasium.error import DependencyNotInstalled


def pygame_available() -> bool:
    """Whether pygame can be imported, without importing it (it is slow and chatty)."""
    if "pygame" in sys.modules:
        return sys.modules["pygame"] is not None
    return importlib.util.find_spec("pygame") is not None


def require_pygame() -> None:
    # The window plays no sound: without a dummy audio driver SDL probes ALSA and prints its
    # errors on machines with no sound card. A driver the user chose is kept.
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame  # noqa: F401
    except ImportError as exc:
        raise DependencyNotInstalled(
            'render_mode="human" needs pygame: pip install "hiddengrid[human]"'
        ) from exc


class Window:
    """Shows RGB frames in a pygame window, scaled up so small grids stay readable."""

    def __init__(self, title: str, fps: int) -> None:
        require_pygame()
        self.title = title
        self.fps = fps
        self._screen = None
        self._clock = None

    def show(self, frame: np.ndarray) -> None:
        import pygame

        height, width = frame.shape[:2]
        if self._screen is None:
            pygame.init()
            pygame.display.set_caption(self.title)
            self._screen = pygame.display.set_mode((width, height))
            self._clock = pygame.time.Clock()
        pygame.event.pump()
        surface = pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()
        self._clock.tick(self.fps)

    def close(self) -> None:
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            pygame.quit()
            self._screen = None
