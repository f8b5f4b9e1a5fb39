"""AnomalyMapping pictures: the whole lab (walls, field, node, agent, sensor window) as text
or as an RGB image. Rendering shows the hidden state: it is for people, not for the agent."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hiddengrid.core.batch import Batch
from hiddengrid.envs.anomaly_mapping.constants import DIR_COL, DIR_ROW, DIRECTION_NAMES, GRID_SIZE
from hiddengrid.envs.anomaly_mapping.generator import wall_grid
from hiddengrid.envs.anomaly_mapping.rules import field_level
from hiddengrid.render import draw

FACING_GLYPH = "^>v<"
LEGEND = (
    "legend: ^ > v < agent (facing)  N node  # wall  3/2/1 field level  . level 0  "
    "[ ] sensor window"
)

TILE = 32
BAR = 62  # the status line and the legend
FLOOR = (236, 236, 228)
WALL = (58, 62, 74)
LEVEL_COLORS = ((236, 236, 228), (255, 224, 150), (255, 170, 90), (235, 95, 60))
NODE = (170, 20, 40)
AGENT = (30, 90, 200)
WINDOW = (30, 160, 90)
INK = (30, 30, 30)


def levels(batch: Batch, i: int) -> np.ndarray:
    walls = batch["walls"]
    node = batch["node"]
    out = np.zeros((GRID_SIZE, GRID_SIZE), dtype=np.int64)
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            out[r, c] = field_level(walls, i, node, r, c)
    return out


def _status(batch: Batch, i: int) -> str:
    status = (
        f"steps left {int(batch['steps_left'][i])}  "
        f"facing {DIRECTION_NAMES[int(batch['facing'][i])]}"
    )
    if batch.done[i] or batch.terminated[i]:
        status += f"  outcome {batch.outcome_name(i)}  reward {batch.reward[i]:g}"
    return status


def render_ansi(batch: Batch, i: int) -> str:
    walls = wall_grid(batch["walls"][i])
    node_r, node_c = batch["node"][i]
    ar, ac = batch["agent"][i]
    lv = levels(batch, i)
    lines = ["    " + " ".join(f"{c:>2}" for c in range(GRID_SIZE))]
    for r in range(GRID_SIZE):
        cells = []
        for c in range(GRID_SIZE):
            if (r, c) == (ar, ac):
                ch = FACING_GLYPH[int(batch["facing"][i])]
            elif (r, c) == (node_r, node_c):
                ch = "N"
            elif walls[r, c]:
                ch = "#"
            else:
                ch = str(lv[r, c]) if lv[r, c] else "."
            in_window = abs(r - ar) <= 1 and abs(c - ac) <= 1
            # The window's edge cells carry the brackets; at the grid's edge the last cell does.
            left = "[" if in_window and c == max(ac - 1, 0) else " "
            right = "]" if in_window and c == min(ac + 1, GRID_SIZE - 1) else " "
            cells.append(left + ch + right)
        row = "".join(cells)
        lines.append(f"{r:>2} " + row)
    lines.append(_status(batch, i))
    lines.append(LEGEND)
    return "\n".join(lines)


def render_rgb(batch: Batch, i: int) -> np.ndarray:
    size = GRID_SIZE * TILE
    img = draw.canvas(size + BAR, size, (250, 250, 250))
    walls = wall_grid(batch["walls"][i])
    lv = levels(batch, i)
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            color = WALL if walls[r, c] else LEVEL_COLORS[lv[r, c]]
            draw.fill_rect(img, r * TILE, c * TILE, TILE, TILE, color)
            draw.outline_rect(img, r * TILE, c * TILE, TILE, TILE, (205, 205, 198), 1)
    nr, nc = (int(v) for v in batch["node"][i])
    cy, cx = nr * TILE + TILE / 2, nc * TILE + TILE / 2
    h = TILE * 0.32
    draw.fill_polygon(img, [(cy - h, cx), (cy, cx + h), (cy + h, cx), (cy, cx - h)], NODE)
    ar, ac = (int(v) for v in batch["agent"][i])
    facing = int(batch["facing"][i])
    # The sensor window, clipped to the lab (on an edge row it would cover the legend).
    top, left = max(ar - 1, 0), max(ac - 1, 0)
    rows, cols = min(ar + 1, GRID_SIZE - 1) - top + 1, min(ac + 1, GRID_SIZE - 1) - left + 1
    draw.outline_rect(img, top * TILE, left * TILE, rows * TILE, cols * TILE, WINDOW, 3)
    draw.arrow(
        img,
        ar * TILE + TILE / 2,
        ac * TILE + TILE / 2,
        DIR_ROW[facing],
        DIR_COL[facing],
        TILE * 0.38,
        AGENT,
    )
    draw.text(img, _status(batch, i), size + 8, 6, INK, scale=2)
    draw.legend(img, size + 30, 6, LEGEND_ENTRIES)
    return img


def _floor_level(level: int) -> Callable[[np.ndarray, int, int, int], None]:
    def paint(img: np.ndarray, top: int, left: int, size: int) -> None:
        draw.fill_rect(img, top, left, size, size, LEVEL_COLORS[level])
        draw.outline_rect(img, top, left, size, size, (170, 170, 160), 1)

    return paint


def _agent(img: np.ndarray, top: int, left: int, size: int) -> None:
    draw.arrow(img, top + size / 2, left + size / 2, 0, 1, size * 0.5, AGENT)


LEGEND_ENTRIES = [
    (_floor_level(3), "3"),
    (_floor_level(2), "2"),
    (_floor_level(1), "1"),
    (_floor_level(0), "0 FIELD LEVEL"),
    (draw.swatch(WALL), "WALL"),
    (draw.swatch(NODE, "diamond"), "NODE"),
    (_agent, "AGENT"),
    (draw.swatch(WINDOW, "outline"), "SENSOR"),
]
