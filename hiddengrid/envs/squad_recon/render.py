"""SquadRecon pictures: the battlefield with its fog, squads and camps, as text or RGB.

Rendering is for people: it shows the hidden state too (camps not yet detected are drawn, in
a weaker style), and the fog tells what the agent knows: cells in sight now in full colour,
explored cells dimmed, unexplored cells dark.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hiddengrid.core.batch import Batch
from hiddengrid.envs.squad_recon.constants import (
    ALIVE,
    COL,
    DETECTED,
    ELIMINATED,
    FOREST,
    GRID_SIZE,
    NUM_CAMPS,
    NUM_SQUADS,
    ROW,
    STEP_BUDGET,
    UNDETECTED,
    UNEXPLORED,
    WALL,
)
from hiddengrid.render import draw

TERRAIN_GLYPH = ".#T"
FOG_MARK = {"visible": " ", "explored": "-", "unexplored": "~"}
STATUS_NAMES = ("not yet detected", "detected", "eliminated")
LEGEND = (
    "legend: 1 2 3 squad (* several on one cell, + destroyed)  C camp  c camp not yet detected"
    "  X camp eliminated  . open  # wall  T forest\n"
    "        second character: ' ' in sight now, '-' explored earlier, '~' unexplored"
)

TILE = 40
BAR = 104  # status lines and the legend
OPEN_RGB = (222, 212, 176)
WALL_RGB = (78, 78, 90)
FOREST_RGB = (52, 122, 64)
TERRAIN_RGB = (OPEN_RGB, WALL_RGB, FOREST_RGB)
NIGHT = (18, 18, 30)
DIM = (120, 120, 128)
SQUAD_RGB = ((30, 90, 210), (20, 150, 200), (110, 70, 210))
DEAD_RGB = (150, 150, 150)
CAMP_RGB = (205, 35, 35)
ELIMINATED_RGB = (60, 60, 60)
WHITE = (255, 255, 255)
INK = (30, 30, 30)
# Where squad k sits inside its cell (fractions of a tile), so shared cells stay readable.
SQUAD_SPOT = ((0.3, 0.3), (0.3, 0.7), (0.72, 0.5))


def _fog(batch: Batch, i: int, r: int, c: int) -> str:
    if batch["visible"][i, r, c]:
        return "visible"
    if batch["explored"][i, r, c] != UNEXPLORED:
        return "explored"
    return "unexplored"


def _status(batch: Batch, i: int) -> list[str]:
    steps_left = int(batch["steps_left"][i])
    eliminated = int((batch["camp_status"][i] == ELIMINATED).sum())
    line = (
        f"step {STEP_BUDGET - steps_left}/{STEP_BUDGET}  steps left {steps_left}  "
        f"camps eliminated {eliminated}/{NUM_CAMPS}  "
        f"total strength {int(batch['total_strength'][i])}"
    )
    if batch.done[i] or batch.terminated[i]:
        return [line, f"outcome {batch.outcome_name(i)}  last reward {batch.reward[i]:g}"]
    return [line]


def render_ansi(batch: Batch, i: int) -> str:
    terrain = batch["terrain"][i]
    squads = batch["squads"][i]
    camps = batch["camps"][i]
    status = batch["camp_status"][i]
    lines = ["   " + "".join(f"{c:>3}" for c in range(GRID_SIZE))]
    for r in range(GRID_SIZE):
        cells = []
        for c in range(GRID_SIZE):
            ch = TERRAIN_GLYPH[int(terrain[r, c])]
            for j in range(NUM_CAMPS):
                if (camps[j, 0], camps[j, 1]) == (r, c):
                    ch = "X" if status[j] == ELIMINATED else "C" if status[j] == DETECTED else "c"
            here = [k for k in range(NUM_SQUADS) if (squads[k, ROW], squads[k, COL]) == (r, c)]
            live = [k for k in here if squads[k, ALIVE]]
            if len(live) > 1:
                ch = "*"
            elif live:
                ch = str(live[0] + 1)
            elif here and ch in TERRAIN_GLYPH:
                ch = "+"
            cells.append(" " + ch + FOG_MARK[_fog(batch, i, r, c)])
        lines.append(f"{r:>3}" + "".join(cells))
    lines += _status(batch, i)
    for k in range(NUM_SQUADS):
        r, c, s, a = (int(v) for v in squads[k])
        lines.append(f"squad {k + 1}: [{r}, {c}] strength {s} {'alive' if a else 'destroyed'}")
    for j in range(NUM_CAMPS):
        r, c, s = (int(v) for v in camps[j])
        lines.append(f"camp {j + 1}: [{r}, {c}] strength {s} {STATUS_NAMES[int(status[j])]}")
    lines.append(LEGEND)
    return "\n".join(lines)


def _centered_text(img: np.ndarray, s: str, cy: float, cx: float, color, scale: int) -> None:
    draw.text(img, s, int(cy - 2.5 * scale), int(cx - draw.text_width(s, scale) / 2 + scale / 2),
              color, scale)  # fmt: skip


def render_rgb(batch: Batch, i: int) -> np.ndarray:
    size = GRID_SIZE * TILE
    img = draw.canvas(size + BAR, size, (250, 250, 250))
    terrain = batch["terrain"][i]
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            color = TERRAIN_RGB[int(terrain[r, c])]
            fog = _fog(batch, i, r, c)
            if fog == "explored":
                color = draw.blend(color, DIM, 0.45)
            elif fog == "unexplored":
                color = draw.blend(color, NIGHT, 0.6)
            draw.fill_rect(img, r * TILE, c * TILE, TILE, TILE, color)
            if terrain[r, c] == FOREST and fog != "unexplored":
                draw.fill_disc(img, r * TILE + TILE / 2, c * TILE + TILE / 2, TILE * 0.22,
                               draw.blend(color, (20, 70, 30), 0.5))  # fmt: skip
            elif terrain[r, c] == WALL:
                draw.outline_rect(
                    img, r * TILE, c * TILE, TILE, TILE, draw.blend(color, INK, 0.4), 2
                )
            draw.outline_rect(img, r * TILE, c * TILE, TILE, TILE, draw.blend(color, INK, 0.15), 1)
    camps = batch["camps"][i]
    for j in range(NUM_CAMPS):
        r, c, s = (int(v) for v in camps[j])
        st = int(batch["camp_status"][i, j])
        top, left, side = r * TILE + 4, c * TILE + 4, TILE - 8
        cy, cx = r * TILE + TILE / 2, c * TILE + TILE / 2
        if st == ELIMINATED:
            draw.fill_rect(img, top, left, side, side, ELIMINATED_RGB)
            draw.draw_line(img, top + 4, left + 4, top + side - 6, left + side - 6, WHITE, 3)
            draw.draw_line(img, top + 4, left + side - 6, top + side - 6, left + 4, WHITE, 3)
        elif st == DETECTED:
            draw.fill_rect(img, top, left, side, side, CAMP_RGB)
            _centered_text(img, str(s), cy, cx, WHITE, 3)
        else:
            assert st == UNDETECTED
            draw.outline_rect(img, top, left, side, side, CAMP_RGB, 2)
            _centered_text(img, str(s), cy, cx, CAMP_RGB, 2)
    squads = batch["squads"][i]
    for k in range(NUM_SQUADS):
        r, c, s, a = (int(v) for v in squads[k])
        cy = r * TILE + SQUAD_SPOT[k][0] * TILE
        cx = c * TILE + SQUAD_SPOT[k][1] * TILE
        draw.fill_disc(img, cy, cx, TILE * 0.24, WHITE)
        draw.fill_disc(img, cy, cx, TILE * 0.21, SQUAD_RGB[k] if a else DEAD_RGB)
        _centered_text(img, str(s), cy, cx, WHITE if a else INK, 2)
    for n, line in enumerate(_status(batch, i)):
        draw.text(img, line, size + 8 + 14 * n, 6, INK, scale=2)
    draw.legend(img, size + 38, 6, LEGEND_ENTRIES)
    return img


def _tile(color: draw.Color, mark: str = "") -> Callable[[np.ndarray, int, int, int], None]:
    def paint(img: np.ndarray, top: int, left: int, size: int) -> None:
        draw.fill_rect(img, top, left, size, size, color)
        if mark == "tree":
            draw.fill_disc(img, top + size / 2, left + size / 2, size * 0.25, (20, 70, 30))
        elif mark == "x":
            draw.draw_line(img, top + 2, left + 2, top + size - 3, left + size - 3, WHITE, 2)
            draw.draw_line(img, top + 2, left + size - 3, top + size - 3, left + 2, WHITE, 2)

    return paint


# Squads are told apart by colour; the number on a squad or a camp is its strength.
LEGEND_ENTRIES = [
    *((draw.swatch(SQUAD_RGB[k], "disc"), f"SQUAD {k + 1}") for k in range(NUM_SQUADS)),
    (draw.swatch(DEAD_RGB, "disc"), "DESTROYED"),
    (draw.swatch(CAMP_RGB), "CAMP"),
    (draw.swatch(CAMP_RGB, "outline"), "CAMP NOT SEEN"),
    (_tile(ELIMINATED_RGB, "x"), "ELIMINATED"),
    (lambda img, top, left, size: None, "NUMBER = STRENGTH"),
    (_tile(OPEN_RGB), "OPEN"),
    (_tile(WALL_RGB), "WALL"),
    (_tile(FOREST_RGB, "tree"), "FOREST"),
    (_tile(draw.blend(OPEN_RGB, DIM, 0.45)), "SEEN BEFORE"),
    (_tile(draw.blend(OPEN_RGB, NIGHT, 0.6)), "NEVER SEEN"),
]
