"""InvertedTreasure pictures: the grid as the agent has revealed it (icons, unseen tiles), the
agent and its 5x5 window, as text or as an RGB image. Tile colours are the same under both
icons, so a picture never tells which icon is the treasure. Once an episode is over, the icons
it never revealed are shown faded (text: lower case), for people watching a replay."""

from __future__ import annotations

import numpy as np

from hiddengrid.core.batch import Batch
from hiddengrid.envs.inverted_treasure.constants import (
    BOMB,
    EMPTY,
    FLOWER,
    GRID_SIZE,
    UNSEEN,
    WINDOW_RADIUS,
)
from hiddengrid.envs.inverted_treasure.rules import revealed
from hiddengrid.render import draw

SEEN_GLYPH = {EMPTY: ".", BOMB: "B", FLOWER: "F"}
HIDDEN_GLYPH = {EMPTY: "?", BOMB: "b", FLOWER: "f"}  # shown only once the episode is over
LEGEND = (
    "legend: @ agent  . Empty  B Bomb icon  F Flower icon  ? unseen  [ ] 5x5 window  "
    "b f never revealed (shown after the end)"
)

TILE = 44
LEFT = 22  # room for the y labels
BOTTOM = 20  # room for the x labels
BAR = 30  # status line
BACKGROUND = (250, 250, 250)
UNSEEN_TILE = (148, 152, 164)
UNSEEN_DOT = (170, 174, 186)
SEEN_TILE = (238, 233, 214)
GRID_LINE = (205, 200, 186)
BOMB_BODY = (34, 34, 40)
BOMB_SHINE = (120, 120, 132)
FUSE = (120, 84, 44)
SPARK = (250, 170, 30)
SPARK_CORE = (255, 240, 120)
PETAL = (236, 96, 150)
FLOWER_CORE = (250, 206, 40)
STEM = (60, 150, 70)
AGENT = (30, 90, 200)
WINDOW = (30, 160, 90)
INK = (30, 30, 30)


def _status(batch: Batch, i: int, pixel_font: bool = False) -> str:
    x = int(batch["position"][i, 0])
    y = int(batch["position"][i, 1])
    where = f"x={x} y={y}" if pixel_font else f"(x, y) = ({x}, {y})"  # the 3x5 font has no comma
    status = f"{where} steps left {int(batch['steps_left'][i])}"
    if batch["scout"][i]:
        status += " scout"
    if batch.done[i] or batch.terminated[i]:
        status += f" {batch.outcome_name(i)} reward {batch.reward[i]:g}"
    return status


def _over(batch: Batch, i: int) -> bool:
    return bool(batch.done[i] or batch.terminated[i])


def render_ansi(batch: Batch, i: int) -> str:
    """The grid north-up (y = 7 on top), x labels below, the window in brackets."""
    icons = batch["icons"][i]
    seen = revealed(batch, i)
    ar, ac = (int(v) for v in batch["agent"][i])
    over = _over(batch, i)
    lines = []
    for r in range(GRID_SIZE):
        cells = []
        for c in range(GRID_SIZE):
            if (r, c) == (ar, ac):
                ch = "@"
            elif seen[r, c] != UNSEEN:
                ch = SEEN_GLYPH[int(seen[r, c])]
            elif over:
                ch = HIDDEN_GLYPH[int(icons[r, c])]
            else:
                ch = "?"
            in_window = abs(r - ar) <= WINDOW_RADIUS and abs(c - ac) <= WINDOW_RADIUS
            left = "[" if in_window and c == max(ac - WINDOW_RADIUS, 0) else " "
            right = "]" if in_window and c == min(ac + WINDOW_RADIUS, GRID_SIZE - 1) else " "
            cells.append(left + ch + right)
        lines.append(f"y{GRID_SIZE - 1 - r} " + "".join(cells))
    lines.append("   " + "".join(f" {c} " for c in range(GRID_SIZE)) + "  x")
    lines.append(_status(batch, i))
    lines.append(LEGEND)
    return "\n".join(lines)


# --- RGB ----------------------------------------------------------------------------------------


def draw_bomb(img: np.ndarray, top: int, left: int, size: int, fade: float = 0.0) -> None:
    """A round black bomb with a shine, a cap, a fuse and a spark."""

    def col(c: draw.Color) -> draw.Color:
        return draw.blend(c, UNSEEN_TILE, fade)

    cy, cx = top + size * 0.60, left + size * 0.44
    radius = size * 0.26
    draw.fill_disc(img, cy, cx, radius, col(BOMB_BODY))
    draw.fill_disc(img, cy - radius * 0.4, cx - radius * 0.4, radius * 0.22, col(BOMB_SHINE))
    cap = size * 0.09
    cap_y, cap_x = cy - radius * 0.78, cx + radius * 0.78
    draw.fill_polygon(
        img,
        [(cap_y - cap, cap_x), (cap_y, cap_x + cap), (cap_y + cap, cap_x), (cap_y, cap_x - cap)],
        col(BOMB_BODY),
    )
    fy, fx = cap_y - cap * 0.5, cap_x + cap * 0.5
    my, mx = top + size * 0.24, left + size * 0.74
    sy, sx = top + size * 0.17, left + size * 0.82
    draw.draw_line(img, fy, fx, my, mx, col(FUSE), 2)
    draw.draw_line(img, my, mx, sy, sx, col(FUSE), 2)
    draw.fill_disc(img, sy, sx, size * 0.075, col(SPARK))
    draw.fill_disc(img, sy, sx, size * 0.035, col(SPARK_CORE))


def draw_flower(img: np.ndarray, top: int, left: int, size: int, fade: float = 0.0) -> None:
    """Five pink petals round a yellow heart, on a green stem with a leaf."""

    def col(c: draw.Color) -> draw.Color:
        return draw.blend(c, UNSEEN_TILE, fade)

    cy, cx = top + size * 0.40, left + size * 0.5
    draw.draw_line(img, cy, cx, top + size * 0.88, cx, col(STEM), 3)
    leaf_y = top + size * 0.72
    draw.fill_polygon(
        img,
        [
            (leaf_y, cx),
            (leaf_y - size * 0.10, cx + size * 0.14),
            (leaf_y - size * 0.02, cx + size * 0.24),
        ],
        col(STEM),
    )
    ring = size * 0.16
    for k in range(5):
        angle = 2 * np.pi * k / 5 - np.pi / 2
        draw.fill_disc(
            img, cy + ring * np.sin(angle), cx + ring * np.cos(angle), size * 0.12, col(PETAL)
        )
    draw.fill_disc(img, cy, cx, size * 0.09, col(FLOWER_CORE))


def draw_agent(img: np.ndarray, top: int, left: int, size: int) -> None:
    """A blue pawn."""
    cx = left + size * 0.5
    draw.fill_disc(img, top + size * 0.30, cx, size * 0.15, AGENT)
    draw.fill_polygon(
        img,
        [
            (top + size * 0.42, cx),
            (top + size * 0.86, cx + size * 0.26),
            (top + size * 0.86, cx - size * 0.26),
        ],
        AGENT,
    )


def render_rgb(batch: Batch, i: int) -> np.ndarray:
    size = GRID_SIZE * TILE
    img = draw.canvas(size + BOTTOM + BAR, LEFT + size, BACKGROUND)
    icons = batch["icons"][i]
    seen = revealed(batch, i)
    ar, ac = (int(v) for v in batch["agent"][i])
    over = _over(batch, i)
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            top, left = r * TILE, LEFT + c * TILE
            shown = int(seen[r, c])
            if shown == UNSEEN:
                draw.fill_rect(img, top, left, TILE, TILE, UNSEEN_TILE)
                draw.fill_disc(img, top + TILE / 2, left + TILE / 2, TILE * 0.07, UNSEEN_DOT)
                hidden = int(icons[r, c])
                if over and hidden == BOMB:
                    draw_bomb(img, top, left, TILE, fade=0.55)
                elif over and hidden == FLOWER:
                    draw_flower(img, top, left, TILE, fade=0.55)
            else:
                draw.fill_rect(img, top, left, TILE, TILE, SEEN_TILE)
                if shown == BOMB:
                    draw_bomb(img, top, left, TILE)
                elif shown == FLOWER:
                    draw_flower(img, top, left, TILE)
            draw.outline_rect(img, top, left, TILE, TILE, GRID_LINE, 1)
    # The 5x5 window, clipped to the grid.
    r0, r1 = max(ar - WINDOW_RADIUS, 0), min(ar + WINDOW_RADIUS, GRID_SIZE - 1)
    c0, c1 = max(ac - WINDOW_RADIUS, 0), min(ac + WINDOW_RADIUS, GRID_SIZE - 1)
    draw.outline_rect(
        img, r0 * TILE, LEFT + c0 * TILE, (r1 - r0 + 1) * TILE, (c1 - c0 + 1) * TILE, WINDOW, 3
    )
    # The agent: a pawn on a plain tile; over an icon (at the end) a thick frame, so the icon
    # it stepped on stays visible.
    if int(seen[ar, ac]) in (BOMB, FLOWER):
        draw.outline_rect(img, ar * TILE + 2, LEFT + ac * TILE + 2, TILE - 4, TILE - 4, AGENT, 4)
    else:
        draw.outline_rect(img, ar * TILE + 3, LEFT + ac * TILE + 3, TILE - 6, TILE - 6, AGENT, 2)
        draw_agent(img, ar * TILE, LEFT + ac * TILE, TILE)
    for k in range(GRID_SIZE):
        draw.text(img, str(GRID_SIZE - 1 - k), k * TILE + TILE // 2 - 5, 6, INK, scale=2)
        draw.text(img, str(k), size + 4, LEFT + k * TILE + TILE // 2 - 3, INK, scale=2)
    draw.text(img, _status(batch, i, pixel_font=True), size + BOTTOM + 8, 6, INK, scale=2)
    return img
