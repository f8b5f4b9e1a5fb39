"""Megacity pictures: the 5x5 city (cell types, supports, shafts, conduits), stress as colour,
the airflow as arrows, seams and faults once research or a scan revealed them, and the four
metrics as bars. Both show what the agent knows (the observation), not the hidden geology."""

from __future__ import annotations

from typing import Any

import numpy as np

from hiddengrid.core.batch import Batch
from hiddengrid.envs.megacity.constants import (
    AIR_OK,
    DIR_COL,
    DIR_ROW,
    DISTRICT_GOAL,
    GRID,
    INTEGRITY_OK,
    POWER_MAX,
    RULE_NAMES,
    STEP_BUDGET,
)
from hiddengrid.envs.megacity.text import SEAM_CHARS, city_lines
from hiddengrid.render import draw

LEGEND = (
    "legend: cell = type (. rock, o chamber, K core, D district) + support (t timber, s steel,"
    " a anchor) + shaft (^ > v <) + conduit (=) + stress 0-100;\n"
    "        airflow: arrow and speed; seams: ? unknown, . none, S seam, arrow its pull;"
    " faults: ? not scanned, F fault"
)


def _metric_bar(name: str, value: int, low: int, high: int, width: int = 20) -> str:
    filled = round(width * (min(max(value, low), high) - low) / (high - low))
    return f"{name:<10}[{'#' * filled}{'-' * (width - filled)}] {value}"


def _status(batch: Batch, i: int) -> list[str]:
    lines = [
        f"step {int(batch['step'][i])}/{STEP_BUDGET}",
        _metric_bar("districts", int(batch["districts"][i]), 0, DISTRICT_GOAL),
        _metric_bar("integrity", int(batch["integrity"][i]), 0, 100) + f" (> {INTEGRITY_OK})",
        _metric_bar("air", int(batch["air"][i]), 0, 100) + f" (> {AIR_OK})",
        _metric_bar("power", int(batch["power"][i]), 0, POWER_MAX) + " (>= 0)",
        "research "
        + " ".join(
            f"{n} {int(s)}/3" for n, s in zip(RULE_NAMES, batch["research"][i], strict=True)
        ),
    ]
    if batch.done[i] or batch.terminated[i]:
        lines.append(f"outcome {batch.outcome_name(i)}  reward {batch.reward[i]:g}")
    return lines


def render_ansi(batch: Batch, i: int) -> str:
    lines = city_lines(
        batch["cells"][i], batch["supports"][i], batch["vents"][i], batch["conduits"][i],
        batch["view_stress"][i],
    )  # fmt: skip
    flow = batch["airflow"][i]
    seams = batch["view_seams"][i]
    faults = batch["view_faults"][i]
    lines.append("      airflow          seams        faults")
    for r in range(GRID):
        fl = " ".join(
            "<>^v."[_dir_index(int(flow[r, c, 0]), int(flow[r, c, 1]))]
            + str(max(abs(int(flow[r, c, 0])), abs(int(flow[r, c, 1]))))
            for c in range(GRID)
        )
        se = " ".join(SEAM_CHARS[int(v)] for v in seams[r])
        fa = " ".join("?" if v < 0 else ("F" if v else ".") for v in faults[r])
        lines.append(f"  {r:>2}  {fl}   {se}   {fa}")
    lines += _status(batch, i)
    lines.append(LEGEND)
    return "\n".join(lines)


def _dir_index(dr: int, dc: int) -> int:
    if dr == 0 and dc == 0:
        return 4
    if abs(dc) >= abs(dr):
        return 0 if dc < 0 else 1
    return 2 if dr < 0 else 3


TILE = 72
PANEL = 300
BG = (246, 244, 238)
INK = (30, 30, 30)
ROCK_LOW = (120, 190, 120)  # stress 0
ROCK_MID = (240, 210, 90)  # stress 50
ROCK_HIGH = (205, 60, 50)  # stress 100
CHAMBER = (250, 250, 245)
DISTRICT = (40, 90, 190)
CORE = (120, 150, 210)
SHAFT = (20, 20, 20)
CONDUIT = (255, 140, 0)
AIR = (255, 255, 255)
AIR_EDGE = (70, 70, 70)
SEAM = (120, 70, 30)
FAULT = (150, 0, 90)
SUPPORT_COLORS = ((0, 0, 0), (150, 100, 50), (110, 120, 140), (60, 160, 160))


def stress_color(s: int) -> tuple[int, int, int]:
    if s <= 50:
        return draw.blend(ROCK_LOW, ROCK_MID, s / 50)
    return draw.blend(ROCK_MID, ROCK_HIGH, (min(s, 100) - 50) / 50)


def _paint_fault(img: np.ndarray, top: int, left: int, size: int) -> None:
    draw.draw_line(img, top, left, top + size - 1, left + size - 1, FAULT, 2)
    draw.draw_line(img, top, left + size - 1, top + size - 1, left, FAULT, 2)


def _paint_chamber(img: np.ndarray, top: int, left: int, size: int) -> None:
    draw.fill_rect(img, top, left, size, size, CHAMBER)
    draw.outline_rect(img, top, left, size, size, INK, 2)


def _paint_district(img: np.ndarray, top: int, left: int, size: int) -> None:
    draw.fill_rect(img, top, left, size, size, DISTRICT)
    draw.fill_rect(img, top + size // 4, left + size // 4, size // 2, size // 2, (250, 230, 120))


def _paint_support(m: int) -> Any:
    def paint(img: np.ndarray, top: int, left: int, size: int) -> None:
        draw.fill_rect(img, top, left, size, size, SUPPORT_COLORS[m])
        draw.text(img, "TSA"[m - 1], top + (size - 5) // 2, left + (size - 3) // 2, BG, scale=1)

    return paint


def _paint_shaft(img: np.ndarray, top: int, left: int, size: int) -> None:
    draw.arrow(img, top + size / 2, left + size / 2, 0, 1, size / 2, SHAFT)


def _paint_air(img: np.ndarray, top: int, left: int, size: int) -> None:
    draw.fill_rect(img, top, left, size, size, (150, 190, 110))
    draw.arrow(img, top + size / 2, left + size / 2, 0, -1, size / 2 - 1, AIR)


# Every mark the picture can hold, drawn as it appears on the grid.
LEGEND_ENTRIES = [
    (draw.swatch(stress_color(10)), "low stress"),
    (draw.swatch(stress_color(90)), "high stress"),
    (_paint_chamber, "chamber"),
    (draw.swatch(CORE), "core (not online)"),
    (_paint_district, "district"),
    (_paint_support(1), "timber"),
    (_paint_support(2), "steel"),
    (_paint_support(3), "anchor"),
    (_paint_shaft, "shaft"),
    (draw.swatch(CONDUIT), "conduit"),
    (_paint_air, "airflow"),
    (draw.swatch(SEAM), "seam (researched)"),
    (_paint_fault, "fault (scanned)"),
]


def render_rgb(batch: Batch, i: int) -> np.ndarray:
    size = GRID * TILE
    img = draw.canvas(size + 78, size + PANEL, BG)
    cells = batch["cells"][i]
    stress = batch["view_stress"][i]
    seams = batch["view_seams"][i]
    faults = batch["view_faults"][i]
    flow = batch["airflow"][i]
    conduits = batch["conduits"][i]
    for r in range(GRID):
        for c in range(GRID):
            top, left = r * TILE, c * TILE
            draw.fill_rect(img, top, left, TILE, TILE, stress_color(int(stress[r, c])))
            draw.outline_rect(img, top, left, TILE, TILE, (90, 90, 90), 1)
            cy, cx = top + TILE / 2, left + TILE / 2
            d = int(seams[r, c])
            if d > 0:  # a seam band, with its pull as an arrow once known
                if d in (1, 3):
                    draw.fill_rect(img, top, int(cx) - 5, TILE, 10, SEAM)
                elif d in (2, 4):
                    draw.fill_rect(img, int(cy) - 5, left, 10, TILE, SEAM)
                else:
                    draw.outline_rect(img, top + 2, left + 2, TILE - 4, TILE - 4, SEAM, 4)
                if d <= 4:  # the pull, once known
                    draw.arrow(img, top + 14, left + TILE - 14, DIR_ROW[d], DIR_COL[d], 9, SEAM)
            if faults[r, c] == 1:
                draw.draw_line(img, top + 4, left + 4, top + TILE - 5, left + TILE - 5, FAULT, 4)
                draw.draw_line(img, top + 4, left + TILE - 5, top + TILE - 5, left + 4, FAULT, 4)
            kind = int(cells[r, c])
            if kind >= 1:
                pad = 14
                color = (CHAMBER, CHAMBER, CORE, DISTRICT)[kind]
                draw.fill_rect(img, top + pad, left + pad, TILE - 2 * pad, TILE - 2 * pad, color)
                draw.outline_rect(
                    img, top + pad, left + pad, TILE - 2 * pad, TILE - 2 * pad, INK, 2
                )
                if kind == 3:  # windows
                    for wy in (0, 1):
                        for wx in (0, 1):
                            draw.fill_rect(
                                img, top + 22 + 16 * wy, left + 22 + 16 * wx, 8, 8, (250, 230, 120)
                            )
            m = int(batch["supports"][i][r, c])
            if m:
                draw.fill_rect(img, top + 3, left + 3, 16, 16, SUPPORT_COLORS[m])
                draw.text(img, "TSA"[m - 1], top + 6, left + 8, (255, 255, 255), scale=1)
            if conduits[r, c]:
                draw.fill_rect(img, int(cy) - 6, int(cx) - 6, 12, 12, CONDUIT)
                for k in range(1, 5):
                    rr, cc = r + DIR_ROW[k], c + DIR_COL[k]
                    if 0 <= rr < GRID and 0 <= cc < GRID and conduits[rr, cc]:
                        draw.draw_line(
                            img,
                            cy,
                            cx,
                            cy + DIR_ROW[k] * TILE / 2,
                            cx + DIR_COL[k] * TILE / 2,
                            CONDUIT,
                            6,
                        )
            v = int(batch["vents"][i][r, c])
            if v:
                draw.arrow(
                    img,
                    cy + DIR_ROW[v] * 26,
                    cx + DIR_COL[v] * 26,
                    DIR_ROW[v],
                    DIR_COL[v],
                    9,
                    SHAFT,
                )
            fr, fc = int(flow[r, c, 0]), int(flow[r, c, 1])
            if fr or fc:
                speed = max(abs(fr), abs(fc))
                ay, ax = top + TILE - 16, left + TILE - 16
                draw.arrow(img, ay, ax, fr, fc, 5 + 3 * speed, AIR_EDGE)
                draw.arrow(img, ay, ax, fr, fc, 3 + 3 * speed, AIR)
    # the four metrics as bars, with their thresholds
    x0 = size + 16
    bar_w = PANEL - 32
    bars = (
        ("DISTRICTS", int(batch["districts"][i]), DISTRICT_GOAL, DISTRICT_GOAL, DISTRICT),
        ("INTEGRITY", int(batch["integrity"][i]), 100, INTEGRITY_OK, (60, 160, 80)),
        ("AIR", int(batch["air"][i]), 100, AIR_OK, (80, 170, 220)),
        ("POWER", int(batch["power"][i]), POWER_MAX, 0, CONDUIT),
    )
    for k, (name, value, top_value, threshold, color) in enumerate(bars):
        y = 16 + k * 62
        draw.text(img, f"{name} {value}", y, x0, INK, scale=2)
        draw.fill_rect(img, y + 16, x0, 22, bar_w, (220, 220, 215))
        w = int(bar_w * max(0, min(value, top_value)) / top_value)
        draw.fill_rect(img, y + 16, x0, 22, w, color)
        tx = x0 + int(bar_w * threshold / top_value)
        draw.fill_rect(img, y + 12, min(tx, x0 + bar_w - 2), 30, 2, INK)
    y = 16 + 4 * 62
    draw.text(img, f"STEP {int(batch['step'][i])}/{STEP_BUDGET}", y, x0, INK, scale=2)
    research = batch["research"][i]
    draw.text(img, "RESEARCH " + " ".join(str(int(s)) for s in research), y + 20, x0, INK, 2)
    if batch.done[i] or batch.terminated[i]:
        draw.text(img, batch.outcome_name(i), y + 40, x0, (170, 20, 40), scale=2)
    draw.legend(img, size + 8, 8, LEGEND_ENTRIES)
    return img
